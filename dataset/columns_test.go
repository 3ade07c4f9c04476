package dataset

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// The skid-steer log spec's columns, as a model asks for them.
var warthogSpec = Spec{Columns: []Column{{Name: "t"}, {Name: "wl"}, {Name: "wr"},
	{Name: "x", Sparse: true}, {Name: "y", Sparse: true}, {Name: "psi", Sparse: true}}, Time: "t"}

const warthogMap = "t=ros_time:ns, wl=meas_left_vel, wr=meas_right_vel, x=icp_pos_x, y=icp_pos_y," +
	" psi=quat(icp_quat_x, icp_quat_y, icp_quat_z, icp_quat_w)"

func mustMap(t *testing.T, s string, where ...string) *ColumnMap {
	t.Helper()
	m, err := ParseColumnMap(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range where {
		f, err := ParseFilter(w)
		if err != nil {
			t.Fatal(err)
		}
		m.Where = append(m.Where, f)
	}
	return m
}

func TestColumnMapReadsARawROSExport(t *testing.T) {
	m := mustMap(t, warthogMap, "ros_time>0")
	tab, err := ReadLog("testdata/warthog-raw.csv", warthogSpec, LogOptions{Columns: m})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 50 {
		t.Fatalf("%d rows, want the 50 after the all-zero row", tab.Len())
	}
	tt := tab.Col("t")
	if dt := tt[1] - tt[0]; math.Abs(dt-0.0504573) > 1e-6 {
		t.Errorf("first step %.7f s, want 0.0504573 (ns to s)", dt)
	}
	if math.Abs(tt[0]-1721335361.719765348) > 1e-6 {
		t.Errorf("t0 = %.9f s", tt[0])
	}
	// Yaw of the first rows, computed independently from the quaternion.
	for i, want := range []float64{0.648032366525074, 0.648032366525074, 0.6484733238110761} {
		if got := tab.Col("psi")[i]; math.Abs(got-want) > 1e-12 {
			t.Errorf("psi[%d] = %.15f, want %.15f", i, got, want)
		}
	}
	if tab.Line[0] != 3 {
		t.Errorf("first row from line %d, want 3", tab.Line[0])
	}
	for _, c := range []string{"ros_time", "meas_left_vel", "icp_quat_w"} {
		if tab.Has(c) {
			t.Errorf("source column %s left in the table", c)
		}
	}
	// An error about a mapped column names the logged one.
	if err := tab.Errorf(0, "wl", "bad"); !strings.Contains(err.Error(), "meas_left_vel") {
		t.Errorf("error %q does not name the logged column", err)
	}
}

func TestColumnMapZeroQuaternionIsAnErrorAtItsRow(t *testing.T) {
	_, err := ReadLog("testdata/warthog-raw.csv", warthogSpec, LogOptions{Columns: mustMap(t, warthogMap)})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Column != "icp_quat_w" || !strings.Contains(err.Error(), "norm 0") {
		t.Fatalf("got %v, want the all-zero row (line 2) named with its quaternion", err)
	}
}

func TestColumnMapFiltersAndTimeRange(t *testing.T) {
	m := mustMap(t, warthogMap, "ros_time > 0", "calib_state=calib")
	tab, err := ReadLog("testdata/warthog-raw.csv", warthogSpec, LogOptions{Columns: m})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 20 {
		t.Errorf("%d calib rows, want 20", tab.Len())
	}
	// The filtered table keeps the file's line numbers (the stretch between
	// the two calib stretches is gone).
	gaps := 0
	for i := 1; i < tab.Len(); i++ {
		if tab.Line[i] != tab.Line[i-1]+1 {
			gaps++
		}
	}
	if gaps != 1 {
		t.Errorf("%d jumps in the line numbers, want 1 (two calib stretches)", gaps)
	}
	m = mustMap(t, warthogMap, "ros_time>0")
	m.From, m.To = 0.5, 1.0
	tab, err = ReadLog("testdata/warthog-raw.csv", warthogSpec, LogOptions{Columns: m})
	if err != nil {
		t.Fatal(err)
	}
	tt := tab.Col("t")
	t0 := 1721335361.719765348
	if tt[0] < t0+0.5 || tt[len(tt)-1] > t0+1.0 || tab.Len() < 9 || tab.Len() > 11 {
		t.Errorf("time range: %d rows from %.3f to %.3f s after t0", tab.Len(), tt[0]-t0, tt[len(tt)-1]-t0)
	}
	m.From, m.To = 100, 0
	if _, err := ReadLog("testdata/warthog-raw.csv", warthogSpec, LogOptions{Columns: m}); !errors.Is(err, ErrNoRows) {
		t.Errorf("a range past the log: %v", err)
	}
}

func TestColumnMapScaleOffsetUnits(t *testing.T) {
	in := "time_ms,left_rpm,right-2,heading_deg_raw,label\n" +
		"0,10,1,170,a\n" +
		"20,20,2,-170,a\n" +
		"40,30,3,-160,b\n"
	path := writeTemp(t, "log.csv", in)
	spec := Spec{Columns: []Column{{Name: "t"}, {Name: "wl"}, {Name: "wr"}, {Name: "psi"}, {Name: "traj", Text: true}}, Time: "t", Group: "traj"}
	m := mustMap(t, "t=time_ms:ms, wl=left_rpm*0.1047+1, wr=right-2, psi=heading_deg_raw:deg, traj=label")
	tab, err := ReadLog(path, spec, LogOptions{Columns: m})
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, got, want float64) {
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", what, got, want)
		}
	}
	near("t[2]", tab.Col("t")[2], 0.04)
	near("wl[1]", tab.Col("wl")[1], 20*0.1047+1)
	near("wr[2] (a column named like an expression)", tab.Col("wr")[2], 3)
	// 170° then -170° unwraps to 190° within run a; run b starts afresh.
	near("psi[1]", tab.Col("psi")[1], 190*math.Pi/180)
	near("psi[2]", tab.Col("psi")[2], -160*math.Pi/180)
	if got := tab.TextCol("traj"); len(got) != 3 || got[2] != "b" {
		t.Errorf("traj = %v", got)
	}
}

func TestColumnMapErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"t", "not TARGET=SOURCE"},
		{"t=", "not TARGET=SOURCE"},
		{"t=a:weeks", `unknown unit "weeks"`},
		{"psi=quat(a,b,c)", "four columns"},
		{"t=a, t=b", "given twice"},
		{"wl=a*0", "finite non-zero"},
	} {
		if _, err := ParseColumnMap(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseColumnMap(%q) = %v, want %q", c.in, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"a", "not COLUMN OP VALUE"},
		{"a<b", "compares numbers"},
	} {
		if _, err := ParseFilter(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseFilter(%q) = %v, want %q", c.in, err, c.want)
		}
	}
	// A source the file lacks is named with the header.
	_, err := ReadLog("testdata/warthog-raw.csv", warthogSpec, LogOptions{Columns: mustMap(t, "t=ros_time:ns,wl=left_vel")})
	if !errors.Is(err, ErrMissingColumn) || !strings.Contains(err.Error(), "left_vel for wl=left_vel") {
		t.Errorf("missing source: %v", err)
	}
	// An ordering filter on text names the row.
	_, err = ReadLog("testdata/warthog-raw.csv", warthogSpec, LogOptions{Columns: mustMap(t, warthogMap, "calib_state>1")})
	// (line 2's "0.0" is a number; line 3's "idle" is the first text)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Column != "calib_state" || pe.Line != 3 || !strings.Contains(err.Error(), `"idle" is not a number`) {
		t.Errorf("ordering filter on text: %v", err)
	}
}

func TestNewColumnMapFromParameterFile(t *testing.T) {
	m, err := NewColumnMap(map[string]string{"t": "ros_time:ns", "psi": "quat(icp_quat_x,icp_quat_y,icp_quat_z,icp_quat_w)",
		"wl": "meas_left_vel", "wr": "meas_right_vel", "x": "icp_pos_x", "y": "icp_pos_y"})
	if err != nil {
		t.Fatal(err)
	}
	m.Where = []Filter{{Column: "ros_time", Op: ">", Value: "0"}}
	tab, err := ReadLog("testdata/warthog-raw.csv", warthogSpec, LogOptions{Columns: m})
	if err != nil || tab.Len() != 50 {
		t.Fatalf("%v (%v rows)", err, tab)
	}
}

// FuzzColumnMap: any text is a map or an error, never a panic; a map that
// parses reads the Warthog excerpt or fails with an error.
func FuzzColumnMap(f *testing.F) {
	for _, s := range []string{warthogMap, "t=a:ms", "wl=x*2-1", "psi=quat(a,b,c,d)", "t=(", "a=b*", ",,", "psi=quat((a,b),c,d,e)"} {
		f.Add(s, "ros_time>0")
	}
	f.Fuzz(func(t *testing.T, s, w string) {
		m, err := ParseColumnMap(s)
		if err != nil || m == nil {
			return
		}
		if f, err := ParseFilter(w); err == nil {
			m.Where = append(m.Where, f)
		}
		ReadLog("testdata/warthog-raw.csv", warthogSpec, LogOptions{Columns: m})
	})
}
