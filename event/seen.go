package event

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/geom"
)

// Seen is the server's rewind buffer per client: where each client was
// sent each entity, at the server times of that client's snapshots. At
// answers where a client saw an entity at a server time, for a hit check
// made against what that client's player saw when it acted (lag
// compensation).
//
// A History records one world for every client; that is what each was
// sent only when every client is sent every entity at every snapshot.
// Once snapshots are made per client (a byte budget that leaves some
// entities out, relevance), clients hold different pictures: an entity
// left out of a client's snapshots stays, to that client, where its last
// snapshot had it. Seen is fed from what each snapshot actually carried
// (the replication layer's replica.Config.OnEntity: every entity a
// client's snapshot refreshes), so it holds each client's own picture.
//
// For each client it holds the last Depth snapshots of up to MaxEntities
// entities each. Memory for a client is allocated at its first Add (about
// 62 bytes an entity a snapshot) and kept, so Add and At do not allocate in
// steady state. A Seen is not safe for concurrent use.
type Seen struct {
	depth, maxEnt int
	views         []*sentRing

	// Dropped counts Add calls refused: for a client out of range, a time
	// before the client's newest snapshot, or a snapshot already holding
	// MaxEntities.
	Dropped uint64
}

// sentRing is what one client was sent: a ring of its snapshots.
type sentRing struct {
	times  []time.Duration // per slot
	counts []int           // entities recorded per slot
	ids    []uint32        // depth × maxEnt
	poses  []pose          // depth × maxEnt
	gens   []uint8         // depth × maxEnt
	cuts   []bool          // depth × maxEnt
	head   int             // slot of the newest snapshot
	n      int             // snapshots held
}

// NewSeen returns a Seen for clients 0 to clients-1 (1 to 65536), holding
// for each the last depth snapshots (2 to 65536) of up to maxEntities
// entities (1 to 65536). The depth must cover the longest rewind allowed at
// the snapshot rate, plus two snapshots to interpolate at its edge: at 30
// snapshots a second, 250 ms take 10.
func NewSeen(clients, depth, maxEntities int) (*Seen, error) {
	switch {
	case clients < 1 || clients > 1<<16:
		return nil, fmt.Errorf("%w: clients %d, want 1 to 65536", ErrConfig, clients)
	case depth < 2 || depth > 1<<16:
		return nil, fmt.Errorf("%w: depth %d, want 2 to 65536", ErrConfig, depth)
	case maxEntities < 1 || maxEntities > 1<<16:
		return nil, fmt.Errorf("%w: maxEntities %d, want 1 to 65536", ErrConfig, maxEntities)
	}
	return &Seen{depth: depth, maxEnt: maxEntities, views: make([]*sentRing, clients)}, nil
}

// Add records that client was sent entity id, of teleport generation gen,
// at pose p, in its snapshot of server time t (the snapshot's time, not the
// time it was sent or arrived). Calls for one client's snapshot share its
// t; a later t starts the client's next snapshot, forgetting its oldest
// once Depth are held. A change of gen from one snapshot of the entity to
// the next, or p.Cut, marks a jump (a teleport, a respawn): At never
// interpolates into it, as a client's timeline does not. Add reports false,
// and counts the call in Dropped, if client is out of range, t is before
// the client's newest snapshot, or that snapshot holds MaxEntities already.
func (s *Seen) Add(client int, t time.Duration, id uint32, gen uint8, p Pose) bool {
	if client < 0 || client >= len(s.views) {
		s.Dropped++
		return false
	}
	r := s.views[client]
	if r == nil {
		r = &sentRing{
			times: make([]time.Duration, s.depth), counts: make([]int, s.depth),
			ids: make([]uint32, s.depth*s.maxEnt), poses: make([]pose, s.depth*s.maxEnt),
			gens: make([]uint8, s.depth*s.maxEnt), cuts: make([]bool, s.depth*s.maxEnt),
			head: s.depth - 1,
		}
		s.views[client] = r
	}
	switch {
	case r.n > 0 && t < r.times[r.head]:
		s.Dropped++
		return false
	case r.n == 0 || t > r.times[r.head]:
		r.head = (r.head + 1) % s.depth
		r.times[r.head], r.counts[r.head] = t, 0
		r.n = min(r.n+1, s.depth)
	}
	if r.counts[r.head] == s.maxEnt {
		s.Dropped++
		return false
	}
	i := r.head*s.maxEnt + r.counts[r.head]
	r.ids[i], r.poses[i], r.gens[i], r.cuts[i] = id, pose{p.Pos, p.Rot}, gen, p.Cut
	r.counts[r.head]++
	return true
}

// Forget forgets what client was sent: call it when the client leaves, so
// that the next one in its place starts with nothing.
func (s *Seen) Forget(client int) {
	if client >= 0 && client < len(s.views) && s.views[client] != nil {
		s.views[client].n = 0
	}
}

// Span returns the server times of the oldest and newest snapshots held
// for client; ok is false when none is.
func (s *Seen) Span(client int) (oldest, newest time.Duration, ok bool) {
	if client < 0 || client >= len(s.views) || s.views[client] == nil || s.views[client].n == 0 {
		return 0, 0, false
	}
	r := s.views[client]
	return r.times[r.slot(r.n-1, s.depth)], r.times[r.head], true
}

func (r *sentRing) slot(age, depth int) int { return (r.head - age + depth) % depth }

// find returns the index of entity id in slot, or -1.
func (r *sentRing) find(slot, maxEnt int, id uint32) int {
	base := slot * maxEnt
	for i := range r.counts[slot] {
		if r.ids[base+i] == id {
			return base + i
		}
	}
	return -1
}

// At returns where client was shown entity id at server time t, as its
// snapshots had it: between the newest snapshot carrying the entity at or
// before t and the oldest carrying it after t, position interpolated
// linearly and rotation slerped, as the client's interpolation draws it
// (the earlier pose held if the later is a jump: a Cut, or another
// generation). Snapshots that left the entity out are skipped: to the
// client it was where the snapshots around them had it. After the newest
// snapshot carrying it, the newest pose is returned (the client holds it;
// its timeline may run it on a little).
//
// ok is false if no snapshot held carries the entity at or before t: the
// client had not been sent it by then (it had not spawned, to that client),
// t is before the oldest snapshot held (the caller should refuse or clamp,
// as RewindTo does), or the client's last snapshot of it is older than
// Depth snapshots.
func (s *Seen) At(client int, id uint32, t time.Duration) (Pose, bool) {
	if client < 0 || client >= len(s.views) || s.views[client] == nil {
		return Pose{}, false
	}
	r := s.views[client]
	after := -1 // the oldest sample of id after t found so far
	for age := range r.n {
		slot := r.slot(age, s.depth)
		i := r.find(slot, s.maxEnt, id)
		if r.times[slot] > t {
			if i >= 0 {
				after = i
			}
			continue
		}
		if i < 0 {
			continue
		}
		a := Pose{Pos: r.poses[i].Pos, Rot: r.poses[i].Rot}
		if after < 0 || r.cuts[after] || r.gens[after] != r.gens[i] {
			return a, true
		}
		tb := r.times[after/s.maxEnt]
		u := float64(t-r.times[slot]) / float64(tb-r.times[slot])
		b := &r.poses[after]
		return Pose{Pos: a.Pos.Lerp(b.Pos, u), Rot: geom.Slerp(unit(a.Rot), unit(b.Rot), u)}, true
	}
	return Pose{}, false
}
