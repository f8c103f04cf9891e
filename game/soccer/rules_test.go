package soccer

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// TestRulesZeroValue: the zero Rules are the default match, field by field; a
// field set keeps its value, a negative one whose zero is a setting becomes
// zero, and the constructors play by the filled rules.
func TestRulesZeroValue(t *testing.T) {
	d := DefaultRules()
	// Every default is set, so that the comparisons below see every field.
	v := reflect.ValueOf(d)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("DefaultRules().%s is zero", v.Type().Field(i).Name)
		}
	}
	if got := (Rules{}).WithDefaults(); got != d {
		t.Fatalf("Rules{}.WithDefaults() = %+v, want DefaultRules()", got)
	}
	if got := d.WithDefaults(); got != d {
		t.Fatalf("DefaultRules().WithDefaults() changed: %+v", got)
	}
	if err := (Rules{}).Validate(); err != nil {
		t.Fatalf("Rules{}: %v", err)
	}

	r := Rules{MaxPlayers: 4, RunSpeed: 6, KickTolerance: -1, GoalPause: -time.Second, Edge: -0.5}
	got := r.WithDefaults()
	want := d
	want.MaxPlayers, want.RunSpeed, want.KickTolerance, want.GoalPause, want.Edge = 4, 6, 0, 0, 0
	if got != want {
		t.Fatalf("partly set rules filled to %+v, want %+v", got, want)
	}
	if err := r.Validate(); err != nil {
		t.Fatalf("negative for zero: %v", err)
	}
	if err := (Rules{RunSpeed: -1}).Validate(); !errors.Is(err, ErrRules) {
		t.Fatalf("negative RunSpeed: %v", err)
	}

	g, err := NewGame(r, 60)
	if err != nil {
		t.Fatal(err)
	}
	if g.Rules() != want || NewClientGame(r).Rules != want || NewBot(r, 1).rules != want {
		t.Fatal("a constructor does not play by the filled rules")
	}
}
