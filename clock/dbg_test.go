package clock

import (
	"math"
	"testing"
	"time"
)

func TestDbgSlope(t *testing.T) {
	var dump *Estimator
	simTrace = func(at, eo, et time.Duration, e *Estimator) {
		if at >= 12*time.Second && dump == nil {
			cp := *e
			cp.buf = append([]sample(nil), e.buf...)
			cp.pts = points{xf: append([]float64(nil), e.pts.xf...), yf: append([]float64(nil), e.pts.yf...), xb: append([]float64(nil), e.pts.xb...), yb: append([]float64(nil), e.pts.yb...)}
			dump = &cp
		}
	}
	defer func() { simTrace = nil }()
	simulate(profileByName("mobile"), 6, parseCfg(t))
	e := dump
	p := &e.pts
	obj := func(b float64) float64 {
		i := argExtreme(p.xf, p.yf, b, 1)
		af := p.yf[i] - b*p.xf[i]
		j := argExtreme(p.xb, p.yb, b, -1)
		ag := p.yb[j] - b*p.xb[j]
		var o float64
		for k := range p.xf {
			o += (p.yf[k] - af - b*p.xf[k]) / e.jf
			o += (ag + b*p.xb[k] - p.yb[k]) / e.jb
		}
		return o + 0*math.Abs(b)
	}
	for _, b := range []float64{-500e-6, -300e-6, -158e-6, -100e-6, 0, 100e-6, 200e-6, 300e-6} {
		t.Logf("b %6.0f ppm obj %.3f", b*1e6, obj(b))
	}
	t.Logf("b=%v jf %v jb %v", e.b*1e6, e.jf, e.jb)
	for k := range p.xf {
		t.Logf("xf %.3f yf %.3f   xb %.3f yb %.3f", p.xf[k], p.yf[k]*1e3, p.xb[k], p.yb[k]*1e3)
	}
}

func TestDbgReady(t *testing.T) {
	debugReady = func(e *Estimator, l time.Duration) {
		t.Logf("ready l=%v start=%v n=%d spread=%.3fms min=%v jf=%.3f jb=%.3f", l, e.epochStart, e.epochSamples, e.spread()*1e3, e.minDelay, e.jf*1e3, e.jb*1e3)
	}
	defer func() { debugReady = nil }()
	simulate(profileByName("drift+500"), 8, Config{})
}
