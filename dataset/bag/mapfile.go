package bag

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Map says which topics of a bag feed which columns of a model's log. It is
// read from JSON (see the README's "Contract additions"):
//
//	{"time": "header",
//	 "topics": [
//	   {"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.z"}},
//	   {"topic": "/tf", "frame_id": "world", "child_frame_id": "base_link",
//	    "columns": {"x": "transform.translation.x", "y": "transform.translation.y",
//	                "psi": "transform.rotation.yaw"}}]}
type Map struct {
	// Time is where a row's time comes from: "header" (the default) takes
	// the header stamp of messages that have one and the log time of the
	// others; "log" takes the log (receive) time of every message.
	Time string `json:"time"`
	// RawColumns are extra command columns, such as raw PWM channels that a
	// parameter file's command_map maps onto the model's wheels.
	RawColumns []string   `json:"raw_columns"`
	Topics     []TopicMap `json:"topics"`
}

// TopicMap is one stream: a topic and the columns it fills.
type TopicMap struct {
	Topic string `json:"topic"`
	// Type is the message type, for a bag that carries no schema for the
	// topic; when the bag has one, they must agree.
	Type string `json:"type"`
	Time string `json:"time"` // overrides Map.Time for this topic
	// FrameID and ChildFrameID select transforms of a tf2_msgs/TFMessage
	// (both required there: the header's frame_id and child_frame_id of
	// one direct transform, e.g. from the motion-capture world to the robot's
	// rigid body), and filter Odometry and the other stamped messages by
	// their frames when given. A leading '/' (ROS 1) is ignored.
	FrameID      string `json:"frame_id"`
	ChildFrameID string `json:"child_frame_id"`
	// Columns maps a log column to a field of the message: the message's
	// field path as ROS names it (linear.x, pose.position.x,
	// twist.twist.angular.z, velocity[left_wheel_joint], data[2]); a
	// quaternion's heading is its path with .yaw (pose.orientation.yaw),
	// unwrapped over the stream.
	Columns map[string]string `json:"columns"`
	// Scale and Offset give a column value·scale + offset (units, signs,
	// wheel radius, a heading offset between the tracked body and the
	// model's axes). Default 1 and 0.
	Scale  map[string]float64 `json:"scale"`
	Offset map[string]float64 `json:"offset"`
}

// group is a set of columns that a model reads together: all of them come
// from one topic, or none.
type group struct {
	cols    []string
	command bool
}

// modelGroups are the log columns of each model (FORMATS.md and its
// additions), in the order they are written.
var modelGroups = map[string][]group{
	"mecanum":   {{[]string{"w1", "w2", "w3", "w4"}, true}, {[]string{"x", "y", "theta"}, false}},
	"diffdrive": {{[]string{"uf", "ul"}, true}, {[]string{"vr", "vl"}, false}, {[]string{"v", "w"}, false}},
	"skidsteer": {{[]string{"vc", "wc"}, true}, {[]string{"wl", "wr"}, true}, {[]string{"x", "y", "psi"}, false}},
	"tire":      {{[]string{"wl", "wr"}, true}, {[]string{"x", "y", "psi"}, false}, {[]string{"u", "v", "r"}, false}},
}

// Models lists the models import writes logs for.
func Models() []string {
	var m []string
	for k := range modelGroups {
		m = append(m, k)
	}
	slices.Sort(m)
	return m
}

// ReadMap reads and checks a map file for model.
func ReadMap(path, model string) (*Map, error) {
	var m Map
	if err := dataset.ReadJSONFile(path, &m, true); err != nil {
		return nil, err
	}
	if err := m.Check(model); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

func (e TopicMap) where(i int) string {
	if e.Topic == "" {
		return fmt.Sprintf("topics[%d]", i)
	}
	return fmt.Sprintf("topics[%d] (%s)", i, e.Topic)
}

// groups returns the model's column groups with the raw columns as one more
// command group.
func (m *Map) groups(model string) []group {
	g := slices.Clone(modelGroups[model])
	if len(m.RawColumns) > 0 {
		g = append(g, group{m.RawColumns, true})
	}
	return g
}

// Check checks the map against the model's columns (message fields are
// checked against the bag's types by Import).
func (m *Map) Check(model string) error {
	gs, ok := modelGroups[model]
	if !ok {
		return fmt.Errorf("unknown model %q (one of %s)", model, strings.Join(Models(), ", "))
	}
	known := map[string]bool{}
	for _, g := range gs {
		for _, c := range g.cols {
			known[c] = true
		}
	}
	for _, c := range m.RawColumns {
		switch {
		case c == "" || c != strings.TrimSpace(c) || strings.ContainsAny(c, ",\"\r\n#"):
			return fmt.Errorf("raw_columns: %q is not a usable column name", c)
		case known[strings.ToLower(c)] || strings.EqualFold(c, "t") || strings.EqualFold(c, "traj"):
			return fmt.Errorf("raw_columns: %q is already a %s column", c, model)
		}
		known[strings.ToLower(c)] = true
	}
	for i, c := range m.RawColumns {
		if slices.IndexFunc(m.RawColumns[:i], func(d string) bool { return strings.EqualFold(c, d) }) >= 0 {
			return fmt.Errorf("raw_columns: %q twice", c)
		}
	}
	if err := checkTime("time", m.Time); err != nil {
		return err
	}
	if len(m.Topics) == 0 {
		return errors.New("the map names no topics")
	}
	owner := map[string]int{} // column -> topic entry
	for i, e := range m.Topics {
		w := e.where(i)
		if e.Topic == "" {
			return fmt.Errorf("%s: no \"topic\"", w)
		}
		if err := checkTime(w+": time", e.Time); err != nil {
			return err
		}
		if len(e.Columns) == 0 {
			return fmt.Errorf("%s: no \"columns\"", w)
		}
		for _, c := range slices.Sorted(maps.Keys(e.Columns)) {
			f := e.Columns[c]
			lc := strings.ToLower(c)
			if !known[lc] {
				return fmt.Errorf("%s: %q is not a %s log column (%s; raw_columns declares others)", w, c, model, strings.Join(columnList(m.groups(model)), ", "))
			}
			if j, dup := owner[lc]; dup {
				return fmt.Errorf("%s: column %q is also filled by %s", w, c, m.Topics[j].where(j))
			}
			owner[lc] = i
			if strings.TrimSpace(f) == "" {
				return fmt.Errorf("%s: column %q names no field", w, c)
			}
		}
		for name, kv := range map[string]map[string]float64{"scale": e.Scale, "offset": e.Offset} {
			for c, v := range kv {
				if _, ok := e.Columns[c]; !ok {
					return fmt.Errorf("%s: %s of %q, which this topic does not fill", w, name, c)
				}
				if math.IsNaN(v) || math.IsInf(v, 0) || (name == "scale" && v == 0) {
					return fmt.Errorf("%s: %s of %q is %v", w, name, c, v)
				}
			}
		}
	}
	command := false
	for _, g := range m.groups(model) {
		from := -1
		var have, miss []string
		for _, c := range g.cols {
			if j, ok := owner[strings.ToLower(c)]; ok {
				have = append(have, c)
				if from >= 0 && j != from {
					return fmt.Errorf("columns %s come from different topics (%s and %s): a model reads them together, so one topic must fill all of them", strings.Join(g.cols, ", "), m.Topics[from].Topic, m.Topics[j].Topic)
				}
				from = j
			} else {
				miss = append(miss, c)
			}
		}
		if len(have) > 0 && len(miss) > 0 {
			return fmt.Errorf("%s fills %s but not %s: a %s log has all of %s or none", m.Topics[from].where(from), strings.Join(have, ", "), strings.Join(miss, ", "), model, strings.Join(g.cols, ", "))
		}
		if len(have) > 0 && g.command {
			command = true
		}
	}
	if !command {
		var cmds []string
		for _, g := range m.groups(model) {
			if g.command {
				cmds = append(cmds, strings.Join(g.cols, ","))
			}
		}
		return fmt.Errorf("the map fills no command columns of a %s log (%s)", model, strings.Join(cmds, " or "))
	}
	return nil
}

func checkTime(w, s string) error {
	if s != "" && s != "header" && s != "log" {
		return fmt.Errorf("%s is %q, not \"header\" or \"log\"", w, s)
	}
	return nil
}

func columnList(gs []group) []string {
	var c []string
	for _, g := range gs {
		c = append(c, g.cols...)
	}
	return c
}
