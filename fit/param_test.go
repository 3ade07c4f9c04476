package fit

import (
	"math"
	"strings"
	"testing"
)

// The wording never says "determined" for σ wider than the bound range;
// a parameter on its bound warns; fix / free lists parse.
func TestVerdicts(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		p    Param
		want string
	}{
		{Param{Name: "mu1", Value: 0.5, Std: 0.001, Lower: 0, Upper: 2}, "determined"},
		{Param{Name: "mu1", Value: 0.5, Std: 0.2, Lower: 0, Upper: 2}, "poorly determined"},
		{Param{Name: "mu1", Value: 1.99, Std: 290, Lower: 0, Upper: 2}, "NOT determined by these logs (σ spans the bound range)"},
		{Param{Name: "mu1", Value: 0.5, Std: math.NaN(), Lower: 0, Upper: 2, Undetermined: true}, "NOT determined by these logs"},
		{Param{Name: "a32", Value: -0.25, Std: 0.01, Lower: -inf, Upper: inf}, "determined"},
		{Param{Name: "a13", Value: 0.01, Std: 0.4, Lower: -inf, Upper: inf}, "NOT determined by these logs"},
		{Param{Name: "c1", Value: 0.4, Std: math.NaN(), Lower: -inf, Upper: inf, Held: true}, "fixed at -init"},
		{Param{Name: "c2", Value: 0.4, Std: math.NaN(), Lower: -inf, Upper: inf}, ""},
		{Param{Name: "c3", Value: 0.4, Std: inf, Lower: 0, Upper: 1}, "NOT determined by these logs"},
	} {
		if got := c.p.Verdict().String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
		if got, want := c.p.Determined(), !strings.HasPrefix(c.want, "NOT"); got != want {
			t.Errorf("%+v: Determined %v, want %v", c.p, got, want)
		}
	}
	ws := OnBound([]Param{{Name: "mu3", Value: 2, Lower: 0, Upper: 2}, {Name: "mu2", Value: 1, Lower: 0, Upper: 2}, {Name: "mu1", Value: 0, Lower: 0, Upper: 2, Held: true}})
	if len(ws) != 1 || !strings.Contains(ws[0].String(), "mu3 ended on its upper bound 2") {
		t.Errorf("OnBound: %v", ws)
	}
	bad := []Param{{Name: "mu1", Value: 1, Std: 5, Lower: 0, Upper: 2}}
	if ws, err := CheckDetermined(bad, false, ""); err == nil || len(ws) != 0 || !strings.Contains(err.Error(), "-fix mu1") {
		t.Errorf("CheckDetermined: %v %v", ws, err)
	}
	if ws, err := CheckDetermined(bad, true, ""); err != nil || len(ws) != 1 || !strings.Contains(ws[0].Msg, "written anyway") {
		t.Errorf("CheckDetermined allowed: %v %v", ws, err)
	}
	if ws, err := CheckDetermined(bad[:0], false, ""); err != nil || ws != nil {
		t.Errorf("CheckDetermined of nothing: %v %v", ws, err)
	}
	names := []string{"a", "b", "c"}
	if h, err := HeldSet(names, SplitList("a, c"), nil); err != nil || !h["a"] || h["b"] || !h["c"] {
		t.Errorf("fix a,c: %v %v", h, err)
	}
	if h, err := HeldSet(names, nil, SplitList("b,")); err != nil || !h["a"] || h["b"] || !h["c"] {
		t.Errorf("free b: %v %v", h, err)
	}
	if h, err := HeldSet(names, nil, nil); err != nil || len(h) != 0 {
		t.Errorf("nothing held: %v %v", h, err)
	}
	for _, bad := range [][2]string{{"x", ""}, {"", "x"}, {"a", "b"}, {"a,b,c", ""}} {
		if _, err := HeldSet(names, SplitList(bad[0]), SplitList(bad[1])); err == nil {
			t.Errorf("fix %q free %q: no error", bad[0], bad[1])
		}
	}
}

func TestWarningString(t *testing.T) {
	for _, c := range []struct {
		w    Warning
		want string
	}{
		{Warning{Msg: "m"}, "m"},
		{Warning{File: "a.csv", Msg: "m"}, "a.csv: m"},
		{Warning{File: "a.csv", Row: 7, Msg: "m"}, "a.csv: line 7: m"},
		{Warnf("b.csv", "x = %d", 3), "b.csv: x = 3"},
	} {
		if got := c.w.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.w, got, c.want)
		}
	}
}
