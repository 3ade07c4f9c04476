package bag

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// sample is what one message (or one transform of a tf2_msgs/TFMessage)
// gives: its header stamp, frames, and its numeric fields by path.
type sample struct {
	stamp  int64 // header stamp (ns); meaningful when the type has a header
	frame  string
	child  string
	fields map[string]float64
	// bad says why an array's fields are missing (JointState: velocity of
	// another length than name), for the message of a map that asks for them
	bad map[string]string
}

// msgType is one standard message type that import decodes.
type msgType struct {
	name   string   // package/Type, without ROS 2's "/msg/"
	header bool     // has std_msgs/Header (a stamp)
	tf     bool     // samples carry frame_id and child_frame_id to select by
	fields []string // the fixed field paths; nil for dynamic ones
	// dynamic checks a path of a type whose fields depend on the message
	// (joint names, array indices).
	dynamic func(path string) error
	decode  func(d *dec) []sample
}

var msgTypes = map[string]*msgType{}

func addType(t *msgType) { msgTypes[t.name] = t }

// normType maps ROS 2 names (geometry_msgs/msg/Twist) and ROS 1 aliases to
// the names of msgTypes.
func normType(s string) string {
	s = strings.TrimSpace(s)
	if p := strings.Split(s, "/"); len(p) == 3 && p[1] == "msg" {
		s = p[0] + "/" + p[2]
	}
	if s == "tf/tfMessage" {
		s = "tf2_msgs/TFMessage"
	}
	return s
}

// SupportedTypes lists the message types import decodes.
func SupportedTypes() []string {
	var n []string
	for k := range msgTypes {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

func vec3Fields(p string) []string { return []string{p + ".x", p + ".y", p + ".z"} }

// quatFields includes the derived yaw (rotation about z, ZYX convention).
func quatFields(p string) []string {
	return []string{p + ".x", p + ".y", p + ".z", p + ".w", p + ".yaw"}
}

func poseFields(p string) []string {
	return append(vec3Fields(p+".position"), quatFields(p+".orientation")...)
}
func twistFields(p string) []string {
	return append(vec3Fields(join(p, "linear")), vec3Fields(join(p, "angular"))...)
}
func transformFields(p string) []string {
	return append(vec3Fields(p+".translation"), quatFields(p+".rotation")...)
}

func join(p, f string) string {
	if p == "" {
		return f
	}
	return p + "." + f
}

func readVec3(d *dec, m map[string]float64, p string) {
	m[p+".x"], m[p+".y"], m[p+".z"] = d.f64(), d.f64(), d.f64()
}

// Yaw is the heading of quaternion (x, y, z, w): the rotation about z of
// the ZYX (yaw-pitch-roll) decomposition, in (-π, π]; the quaternion need
// not be normalised.
func Yaw(x, y, z, w float64) float64 {
	return math.Atan2(2*(w*z+x*y), w*w+x*x-y*y-z*z)
}

func readQuat(d *dec, m map[string]float64, p string) {
	x, y, z, w := d.f64(), d.f64(), d.f64(), d.f64()
	m[p+".x"], m[p+".y"], m[p+".z"], m[p+".w"] = x, y, z, w
	m[p+".yaw"] = Yaw(x, y, z, w)
}

func readPose(d *dec, m map[string]float64, p string) {
	readVec3(d, m, p+".position")
	readQuat(d, m, p+".orientation")
}

func readTwist(d *dec, m map[string]float64, p string) {
	readVec3(d, m, join(p, "linear"))
	readVec3(d, m, join(p, "angular"))
}

func one(s sample) []sample { return []sample{s} }

func init() {
	addType(&msgType{name: "geometry_msgs/Twist", fields: twistFields(""),
		decode: func(d *dec) []sample {
			m := map[string]float64{}
			readTwist(d, m, "")
			return one(sample{fields: m})
		}})
	addType(&msgType{name: "geometry_msgs/TwistStamped", header: true, fields: twistFields("twist"),
		decode: func(d *dec) []sample {
			s := sample{fields: map[string]float64{}}
			s.stamp, s.frame = d.header()
			readTwist(d, s.fields, "twist")
			return one(s)
		}})
	addType(&msgType{name: "geometry_msgs/PoseStamped", header: true, fields: poseFields("pose"),
		decode: func(d *dec) []sample {
			s := sample{fields: map[string]float64{}}
			s.stamp, s.frame = d.header()
			readPose(d, s.fields, "pose")
			return one(s)
		}})
	addType(&msgType{name: "geometry_msgs/PoseWithCovarianceStamped", header: true, fields: poseFields("pose.pose"),
		decode: func(d *dec) []sample {
			s := sample{fields: map[string]float64{}}
			s.stamp, s.frame = d.header()
			readPose(d, s.fields, "pose.pose")
			d.skipF64(36)
			return one(s)
		}})
	addType(&msgType{name: "nav_msgs/Odometry", header: true,
		fields: append(poseFields("pose.pose"), twistFields("twist.twist")...),
		decode: func(d *dec) []sample {
			s := sample{fields: map[string]float64{}}
			s.stamp, s.frame = d.header()
			s.child = d.str()
			readPose(d, s.fields, "pose.pose")
			d.skipF64(36)
			readTwist(d, s.fields, "twist.twist")
			d.skipF64(36)
			return one(s)
		}})
	transform := func(d *dec) sample {
		s := sample{fields: map[string]float64{}}
		s.stamp, s.frame = d.header()
		s.child = d.str()
		readVec3(d, s.fields, "transform.translation")
		readQuat(d, s.fields, "transform.rotation")
		return s
	}
	addType(&msgType{name: "geometry_msgs/TransformStamped", header: true, tf: true, fields: transformFields("transform"),
		decode: func(d *dec) []sample { return one(transform(d)) }})
	addType(&msgType{name: "tf2_msgs/TFMessage", header: true, tf: true, fields: transformFields("transform"),
		decode: func(d *dec) []sample {
			n := d.count(4)
			var ss []sample
			for range n {
				ss = append(ss, transform(d))
			}
			return ss
		}})
	addType(&msgType{name: "sensor_msgs/JointState", header: true, dynamic: checkJointPath,
		decode: func(d *dec) []sample {
			s := sample{fields: map[string]float64{}}
			s.stamp, s.frame = d.header()
			names := d.strs()
			for _, arr := range []string{"position", "velocity", "effort"} {
				v := d.f64s()
				if len(v) == 0 {
					continue // allowed: the driver does not report it
				}
				if len(v) != len(names) && d.err == nil {
					if s.bad == nil {
						s.bad = map[string]string{}
					}
					s.bad[arr] = fmt.Sprintf("%s has %d values for %d names", arr, len(v), len(names))
					continue
				}
				for i, n := range names {
					s.fields[arr+"["+n+"]"] = v[i]
				}
			}
			return one(s)
		}})
	kinds := []struct {
		name string
		k    kind
	}{{"Float64", kF64}, {"Float32", kF32}, {"Int8", kI8}, {"UInt8", kU8}, {"Int16", kI16},
		{"UInt16", kU16}, {"Int32", kI32}, {"UInt32", kU32}, {"Int64", kI64}, {"UInt64", kU64}}
	for _, kk := range kinds {
		k := kk.k
		addType(&msgType{name: "std_msgs/" + kk.name, fields: []string{"data"},
			decode: func(d *dec) []sample {
				return one(sample{fields: map[string]float64{"data": d.elem(k)}})
			}})
		addType(&msgType{name: "std_msgs/" + kk.name + "MultiArray", dynamic: checkIndexPath,
			decode: func(d *dec) []sample {
				// std_msgs/MultiArrayLayout: dim[] {label, size, stride}, data_offset
				nd := d.count(12)
				for range nd {
					d.str()
					d.u32()
					d.u32()
				}
				d.u32()
				n := d.count(k.size())
				m := make(map[string]float64, n)
				for i := range n {
					m["data["+strconv.Itoa(i)+"]"] = d.elem(k)
				}
				return one(sample{fields: m})
			}})
	}
}

// checkJointPath accepts position[NAME], velocity[NAME], effort[NAME].
func checkJointPath(p string) error {
	for _, a := range []string{"position", "velocity", "effort"} {
		if rest, ok := strings.CutPrefix(p, a+"["); ok && strings.HasSuffix(rest, "]") && len(rest) > 1 {
			return nil
		}
	}
	return fmt.Errorf("field %q is not position[JOINT], velocity[JOINT] or effort[JOINT]", p)
}

// checkIndexPath accepts data[I] with a decimal index I ≥ 0.
func checkIndexPath(p string) error {
	if rest, ok := strings.CutPrefix(p, "data["); ok && strings.HasSuffix(rest, "]") {
		i := rest[:len(rest)-1]
		if n, err := strconv.Atoi(i); err == nil && n >= 0 && strconv.Itoa(n) == i {
			return nil
		}
	}
	return fmt.Errorf("field %q is not data[INDEX] (INDEX from 0)", p)
}

// checkPath says whether path names a field of t.
func (t *msgType) checkPath(path string) error {
	if t.dynamic != nil {
		return t.dynamic(path)
	}
	if slices.Contains(t.fields, path) {
		return nil
	}
	return fmt.Errorf("%s has no field %q (fields: %s)", t.name, path, strings.Join(t.fields, ", "))
}
