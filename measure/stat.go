package measure

import (
	"encoding/binary"
	"math"
	"slices"
)

// Stat summarises a series of samples. Its JSON form is the statistics object
// of the design document. Every field is rounded to six decimals (Round).
type Stat struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	RMS  float64 `json:"rms"`
}

// Summarise computes the Stat of samples xs: mean, p50 and p99 by the
// nearest rank, max and rms; the zero Stat when xs is empty.
func Summarise(xs []float64) Stat {
	var s Series
	for _, x := range xs {
		s.Add(x)
	}
	return s.Stat()
}

// Series accumulates samples for a Stat in a byte or two each: it keeps the
// exact sum and sum of squares, and each sample rounded to six decimals (the
// rounding the Stat applies anyway, so its quantiles are exact) as an integer
// count of millionths. Those are buffered, then sorted into runs stored as
// varint deltas, which merging makes denser as the series grows. A sample too
// large for that (beyond ±2147 units) is kept whole. The zero Series is empty.
type Series struct {
	n       int
	sum, sq float64
	buf     []int32   // the newest samples, Round(x)·1e6, in order of arrival
	runs    []run     // the older ones; each run holds at least as many as the next
	large   []float64 // the samples too large for an int32 of millionths
}

// seriesChunk is how many samples a Series buffers before compressing them.
const seriesChunk = 1024

// run is a sorted sequence of int32s stored as the uvarint differences from
// each to the next, the first from math.MinInt32.
type run struct {
	n int
	b []byte
}

// runReader reads a run in order.
type runReader struct {
	b    []byte
	left int
	v    int64
}

func (r run) reader() runReader { return runReader{b: r.b, left: r.n, v: math.MinInt32} }

// next returns the next value; there must be one (left > 0).
func (r *runReader) next() int32 {
	d, k := binary.Uvarint(r.b)
	r.b, r.left, r.v = r.b[k:], r.left-1, r.v+int64(d)
	return int32(r.v)
}

// runWriter appends sorted values to a run.
type runWriter struct {
	r    run
	prev int64
}

func newRunWriter(size int) runWriter {
	return runWriter{r: run{b: make([]byte, 0, size)}, prev: math.MinInt32}
}

func (w *runWriter) add(v int32) {
	w.r.b = binary.AppendUvarint(w.r.b, uint64(int64(v)-w.prev))
	w.r.n++
	w.prev = int64(v)
}

// Add appends sample x.
func (s *Series) Add(x float64) {
	s.n++
	s.sum += x
	s.sq += x * x
	k := math.Round(x * 1e6)
	if !(k >= math.MinInt32 && k <= math.MaxInt32) {
		s.large = append(s.large, x)
		return
	}
	s.buf = append(s.buf, int32(k))
	if len(s.buf) == seriesChunk {
		s.flush()
	}
}

// merge returns the run of a's and b's values together.
func merge(a, b run) run {
	w := newRunWriter(len(a.b) + len(b.b))
	ca, cb := a.cursor(), b.cursor()
	for ca.ok || cb.ok {
		if !cb.ok || ca.ok && ca.v <= cb.v {
			w.add(ca.v)
			ca.advance()
		} else {
			w.add(cb.v)
			cb.advance()
		}
	}
	return w.r
}

// cursor walks a run: v is the current value, if ok.
type cursor struct {
	r  runReader
	v  int32
	ok bool
}

func (r run) cursor() cursor {
	c := cursor{r: r.reader()}
	c.advance()
	return c
}

func (c *cursor) advance() {
	if c.ok = c.r.left > 0; c.ok {
		c.v = c.r.next()
	}
}

// flush compresses the buffered samples into a run.
func (s *Series) flush() {
	if len(s.buf) == 0 {
		return
	}
	slices.Sort(s.buf)
	w := newRunWriter(2 * len(s.buf))
	for _, v := range s.buf {
		w.add(v)
	}
	s.buf = s.buf[:0]
	s.runs = append(s.runs, w.r)
	for n := len(s.runs); n >= 2 && s.runs[n-2].n <= s.runs[n-1].n; n-- {
		s.runs[n-2] = merge(s.runs[n-2], s.runs[n-1])
		s.runs = s.runs[:n-1]
	}
}

// Merge adds o's samples to s, which then summarises both (pooling runs).
// o is left as it is.
func (s *Series) Merge(o *Series) {
	o.flush()
	s.flush()
	s.n += o.n
	s.sum += o.sum
	s.sq += o.sq
	s.large = append(s.large, o.large...)
	s.runs = append(s.runs, o.runs...) // runs are never written once made
	slices.SortFunc(s.runs, func(a, b run) int { return b.n - a.n })
}

// Len returns how many samples were added.
func (s *Series) Len() int { return s.n }

// Stat summarises the samples added so far.
func (s *Series) Stat() Stat {
	if s.n == 0 {
		return Stat{}
	}
	s.flush()
	for len(s.runs) > 1 {
		n := len(s.runs)
		s.runs[n-2] = merge(s.runs[n-2], s.runs[n-1])
		s.runs = s.runs[:n-1]
	}
	slices.Sort(s.large)
	nearest := func(q float64) int { return max(0, min(int(math.Ceil(q*float64(s.n)))-1, s.n-1)) }
	ranks := [3]int{nearest(0.50), nearest(0.99), s.n - 1}
	var vals [3]float64
	// Large samples lie below every small one (negative) or above them.
	below, _ := slices.BinarySearch(s.large, 0)
	small := 0
	if len(s.runs) > 0 {
		small = s.runs[0].n
	}
	for i, r := range ranks {
		switch {
		case r < below:
			vals[i] = Round(s.large[r])
		case r >= below+small:
			vals[i] = Round(s.large[r-small])
		}
	}
	if small > 0 {
		c := s.runs[0].cursor()
		for k := 0; k < small && k <= ranks[2]-below; k++ {
			for i, r := range ranks {
				if r-below == k {
					vals[i] = float64(c.v) / 1e6
				}
			}
			c.advance()
		}
	}
	n := float64(s.n)
	return Stat{
		Mean: Round(s.sum / n),
		P50:  vals[0],
		P99:  vals[1],
		Max:  vals[2],
		RMS:  Round(math.Sqrt(s.sq / n)),
	}
}

// Round keeps six decimals so reports stay readable; the figures measured
// are nowhere near that precise.
func Round(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	return math.Round(x*1e6) / 1e6
}
