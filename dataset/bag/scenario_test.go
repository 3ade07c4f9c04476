package bag

import (
	"math"
	"math/rand/v2"
)

// truth is what one message (one transform of a TFMessage) says, as the
// generator made it: the expectation of a test is computed from these, never
// from the decoders.
type truth struct {
	log, stamp   int64
	frame, child string
	fields       map[string]float64 // yaw fields hold the true unwrapped angle
}

type scenario struct {
	streams []stream
	truths  map[string][]truth // by topic
	header  map[string]bool    // topic's type has a header
}

const t0 = int64(1_700_000_000_123_456_789) // ns since the Unix epoch

// newScenario makes a 3-s recording of a wheeled robot: commands, wheel
// speeds, motion capture (pose and tf), odometry and raw wheel commands,
// each at its own rate with jittered receive times and header stamps a few
// ms older than the receive time; a second JointState publisher; a topic of
// a type import does not decode. Headings cross ±π.
func newScenario(ros1 bool, seed uint64) *scenario { return newScenarioFor(ros1, seed, 3) }

// newScenarioFor is newScenario over dur seconds.
func newScenarioFor(ros1 bool, seed uint64, dur float64) *scenario {
	rng := rand.New(rand.NewPCG(seed, 99))
	sc := &scenario{truths: map[string][]truth{}, header: map[string]bool{}}
	jit := func(ms float64) int64 { return int64((rng.Float64() - 0.5) * ms * 1e6) }
	noise := func(s float64) float64 { return s * rng.NormFloat64() }
	add := func(topic, typ string, header bool, rate float64, offset int64, gen func(e *enc, k int, tm float64, log, stamp int64) []truth) {
		s := stream{topic: topic, typ: typ}
		sc.header[topic] = header
		n := int(dur * rate)
		for k := range n {
			tm := float64(k) / rate
			log := t0 + offset + int64(tm*1e9) + jit(2)
			stamp := log - 3_000_000 - int64(rng.IntN(2_000_000)) // 3–5 ms transport latency
			e := newEnc(ros1)
			tr := gen(e, k, tm, log, stamp)
			s.msgs = append(s.msgs, tmsg{log: log, data: e.b})
			sc.truths[topic] = append(sc.truths[topic], tr...)
		}
		sc.streams = append(sc.streams, s)
	}
	add("/cmd_vel", "geometry_msgs/Twist", false, 10, 5_000_000, func(e *enc, k int, tm float64, log, stamp int64) []truth {
		vc, wc := 0.4+0.3*math.Sin(tm)+noise(0.01), 0.9*math.Cos(0.7*tm)
		e.twist([3]float64{vc, 0, 0}, [3]float64{0, 0, wc})
		return []truth{{log: log, fields: map[string]float64{"linear.x": vc, "linear.y": 0, "angular.z": wc}}}
	})
	psi := func(tm float64) float64 { return 2.6 + 0.9*tm }
	add("/mocap/pose", "geometry_msgs/PoseStamped", true, 50, 11_000_000, func(e *enc, k int, tm float64, log, stamp int64) []truth {
		x, y, a := math.Cos(tm)+noise(0.002), math.Sin(tm)+noise(0.002), psi(tm)+noise(0.003)
		e.header(stamp, "world")
		e.pose([3]float64{x, y, 0.05}, quat(a, noise(0.01), noise(0.01)))
		return []truth{{log: log, stamp: stamp, frame: "world", fields: map[string]float64{
			"pose.position.x": x, "pose.position.y": y, "pose.orientation.yaw": a}}}
	})
	add("/joint_states", "sensor_msgs/JointState", true, 20, 2_000_000, func(e *enc, k int, tm float64, log, stamp int64) []truth {
		if k%4 == 3 { // another driver publishes the arm on the same topic
			e.jointState(stamp, []string{"arm"}, []float64{0.3}, []float64{0.01}, nil)
			return []truth{{log: log, stamp: stamp, fields: map[string]float64{"velocity[arm]": 0.01}}}
		}
		wl, wr := 4+math.Sin(tm)+noise(0.05), 4.5-math.Sin(tm)+noise(0.05)
		e.jointState(stamp, []string{"caster", "left_wheel", "right_wheel"}, []float64{0.1, 1, 2}, []float64{0.2, wl, -wr}, nil)
		return []truth{{log: log, stamp: stamp, fields: map[string]float64{
			"velocity[left_wheel]": wl, "velocity[right_wheel]": -wr, "position[left_wheel]": 1}}}
	})
	yaw := func(tm float64) float64 { return -2.8 - 0.7*tm }
	add("/tf", "tf2_msgs/TFMessage", true, 30, 7_000_000, func(e *enc, k int, tm float64, log, stamp int64) []truth {
		x, y, a := 0.5*tm+noise(0.001), -0.2*tm+noise(0.001), yaw(tm)+noise(0.002)
		e.u32(2)
		e.transform(stamp, "odom", "base_link", [3]float64{9, 9, 0}, quat(1, 0, 0))
		e.transform(stamp-1000, "/world", "robot", [3]float64{x, y, 0}, quat(a, 0, 0))
		return []truth{
			{log: log, stamp: stamp, frame: "odom", child: "base_link", fields: map[string]float64{"transform.translation.x": 9, "transform.translation.y": 9, "transform.rotation.yaw": 1}},
			{log: log, stamp: stamp - 1000, frame: "world", child: "robot", fields: map[string]float64{"transform.translation.x": x, "transform.translation.y": y, "transform.rotation.yaw": a}}}
	})
	add("/odom", "nav_msgs/Odometry", true, 25, 3_000_000, func(e *enc, k int, tm float64, log, stamp int64) []truth {
		u, v, r := 0.5+noise(0.01), noise(0.01), 0.3+noise(0.01)
		e.header(stamp, "odom")
		e.str("base_link")
		e.pose([3]float64{tm, 0, 0}, quat(0.3*tm, 0, 0))
		e.cov(1)
		e.twist([3]float64{u, v, 0}, [3]float64{0, 0, r})
		e.cov(100)
		return []truth{{log: log, stamp: stamp, frame: "odom", child: "base_link", fields: map[string]float64{
			"twist.twist.linear.x": u, "twist.twist.linear.y": v, "twist.twist.angular.z": r, "pose.pose.position.x": tm}}}
	})
	add("/wheel_cmd", "std_msgs/Float64MultiArray", false, 40, 1_000_000, func(e *enc, k int, tm float64, log, stamp int64) []truth {
		w := [4]float64{10 + tm, -10 - tm, 12 * math.Sin(tm), 3}
		e.multiArray(4, func(i int) { e.f64(w[i]) })
		return []truth{{log: log, fields: map[string]float64{"data[0]": w[0], "data[1]": w[1], "data[2]": w[2], "data[3]": w[3]}}}
	})
	add("/pwm", "std_msgs/Int16MultiArray", false, 40, 1_500_000, func(e *enc, k int, tm float64, log, stamp int64) []truth {
		p := [4]int16{int16(100 + k), int16(-120 - k), 90, -255}
		e.multiArray(4, func(i int) { e.i16(p[i]) })
		return []truth{{log: log, fields: map[string]float64{"data[0]": float64(p[0]), "data[1]": float64(p[1]), "data[2]": float64(p[2]), "data[3]": float64(p[3])}}}
	})
	add("/joy", "geometry_msgs/TwistStamped", true, 15, 4_000_000, func(e *enc, k int, tm float64, log, stamp int64) []truth {
		uf, ul := 60+noise(5), 20*math.Sin(tm)
		e.header(stamp, "joy")
		e.twist([3]float64{uf, 0, 0}, [3]float64{0, 0, ul})
		return []truth{{log: log, stamp: stamp, frame: "joy", fields: map[string]float64{"twist.linear.x": uf, "twist.angular.z": ul}}}
	})
	add("/scan", "sensor_msgs/LaserScan", true, 10, 0, func(e *enc, k int, tm float64, log, stamp int64) []truth {
		e.header(stamp, "laser")
		e.vec(1, 2, 3)
		return nil
	})
	return sc
}
