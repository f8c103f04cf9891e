package server

import (
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/replica"
)

// crowded is a replicated game of n entities, all moving, two of one id.
type crowded struct {
	fakeGame
	n, tick int
}

var crowdedSchema, _ = replica.NewSchema(replica.Kind{Fields: []replica.Field{replica.Position(1000, replica.XYZ)}})

func (g *crowded) Replication() (*replica.Schema, replica.Config) {
	return crowdedSchema, replica.Config{}
}

func (g *crowded) Replicate(w *replica.World) {
	g.tick++
	for i := range g.n {
		w.Add(replica.Entity{ID: uint32(i), State: kinematic.State{Pos: geom.V(float64(i), float64(g.tick), 0)}})
	}
	w.Add(replica.Entity{ID: 0})
}

// bulky encodes its own snapshots, too large for one packet.
type bulky struct{ fakeGame }

func (g *bulky) AppendSnapshot(dst []byte, _ bool) []byte { return append(dst, make([]byte, 2000)...) }

// run ticks s through n ticks with a client in slot 3 that acknowledges
// every snapshot at once.
func run(t *testing.T, s *Server, n int) {
	t.Helper()
	if err := s.Connect(0, 3); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= n; k++ {
		s.Tick(time.Duration(k) * s.TickInterval())
		s.clients[3].stats.Acked = uint64(k)
		for {
			if _, _, ok := s.Transmit(); !ok {
				break
			}
		}
	}
}

// A snapshot that does not fit one packet is counted every time and
// reported once; so is a world of duplicate ids. A replicated world far too
// large for its budget (a thousand entities, all moving, in 64 bytes) still
// goes, every change left out but what fits.
func TestLimits(t *testing.T) {
	var limits []Limit
	onLimit := func(l Limit) { limits = append(limits, l) }
	s, err := New(Config{OnLimit: onLimit}, &bulky{*newFake()})
	if err != nil {
		t.Fatal(err)
	}
	run(t, s, 20)
	if st := s.Stats(); st.Oversize != 10 || len(limits) != 1 || limits[0].Client != 3 || limits[0].Bytes < 2000 {
		t.Errorf("Oversize %d (want 10), limits %+v (want one, client 3's)", st.Oversize, limits)
	}

	limits = nil
	s, err = New(Config{SnapshotBudget: 64, OnLimit: onLimit}, &crowded{fakeGame: *newFake(), n: 1000})
	if err != nil {
		t.Fatal(err)
	}
	run(t, s, 120)
	st, rs := s.Stats(), s.Replica().Stats()
	if st.Oversize != 0 || st.Snapshots != 60 || rs.LeftOut == 0 {
		t.Errorf("oversize %d, snapshots %d, left out %d: want none, 60, some", st.Oversize, st.Snapshots, rs.LeftOut)
	}
	if rs.Duplicates != 60 || len(limits) != 1 || limits[0].Cause != causeText[duplicateID] {
		t.Errorf("duplicates %d (want 60), limits %+v (want the duplicate, once)", rs.Duplicates, limits)
	}
}
