package bag

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// errShort is a message that ends before its last field.
var errShort = errors.New("message ends early")

// dec reads the fields of one serialized message in either of the two wire
// formats import meets:
//
//   - ROS 2 CDR (XCDR1, and plain XCDR2 for final types): a 4-byte
//     encapsulation header picks the byte order; each primitive is aligned to
//     its size counted from the end of that header (at most 4 in XCDR2);
//     strings carry their terminating NUL in their length.
//   - ROS 1: little-endian, packed (no alignment), strings without NUL, and a
//     sequence number in std_msgs/Header.
//
// The first error sticks; reads after it return zeros.
type dec struct {
	b        []byte
	off      int
	base     int // alignment origin
	order    binary.ByteOrder
	ros1     bool
	maxAlign int
	err      error
}

func newCDR(b []byte) (*dec, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("CDR message of %d bytes has no encapsulation header", len(b))
	}
	d := &dec{b: b, off: 4, base: 4}
	if b[0] != 0 {
		return nil, fmt.Errorf("unsupported CDR encapsulation 0x%02x%02x", b[0], b[1])
	}
	switch b[1] {
	case 0x00: // CDR_BE
		d.order, d.maxAlign = binary.BigEndian, 8
	case 0x01: // CDR_LE
		d.order, d.maxAlign = binary.LittleEndian, 8
	case 0x06: // CDR2_BE
		d.order, d.maxAlign = binary.BigEndian, 4
	case 0x07: // CDR2_LE
		d.order, d.maxAlign = binary.LittleEndian, 4
	default:
		return nil, fmt.Errorf("unsupported CDR encapsulation 0x%02x%02x (plain CDR or CDR2 only)", b[0], b[1])
	}
	return d, nil
}

func newROS1(b []byte) *dec {
	return &dec{b: b, order: binary.LittleEndian, ros1: true, maxAlign: 1}
}

// take returns the next n bytes after aligning to size (capped by maxAlign).
func (d *dec) take(n, size int) []byte {
	if d.err != nil {
		return nil
	}
	if a := min(size, d.maxAlign); a > 1 {
		if r := (d.off - d.base) % a; r != 0 {
			d.off += a - r
		}
	}
	if n < 0 || d.off > len(d.b) || n > len(d.b)-d.off {
		d.err = errShort
		return nil
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

func (d *dec) u8() uint8 {
	p := d.take(1, 1)
	if p == nil {
		return 0
	}
	return p[0]
}

func (d *dec) u16() uint16 {
	p := d.take(2, 2)
	if p == nil {
		return 0
	}
	return d.order.Uint16(p)
}

func (d *dec) u32() uint32 {
	p := d.take(4, 4)
	if p == nil {
		return 0
	}
	return d.order.Uint32(p)
}

func (d *dec) u64() uint64 {
	p := d.take(8, 8)
	if p == nil {
		return 0
	}
	return d.order.Uint64(p)
}

func (d *dec) f64() float64 { return math.Float64frombits(d.u64()) }
func (d *dec) f32() float64 { return float64(math.Float32frombits(d.u32())) }

// count reads a sequence length and refuses one that the remaining bytes
// cannot hold (elemSize bytes at least per element), so that a corrupt
// length never allocates.
func (d *dec) count(elemSize int) int {
	n := d.u32()
	if d.err != nil {
		return 0
	}
	if int64(n)*int64(max(elemSize, 1)) > int64(len(d.b)-d.off) {
		d.err = fmt.Errorf("sequence of %d elements is longer than the message", n)
		return 0
	}
	return int(n)
}

func (d *dec) str() string {
	n := d.count(1)
	p := d.take(n, 1)
	if d.err != nil {
		return ""
	}
	if !d.ros1 && n > 0 {
		if p[n-1] != 0 {
			d.err = errors.New("CDR string without its terminating NUL")
			return ""
		}
		p = p[:n-1]
	}
	return string(p)
}

func (d *dec) strs() []string {
	n := d.count(4)
	s := make([]string, 0, n)
	for range n {
		s = append(s, d.str())
	}
	return s
}

func (d *dec) f64s() []float64 {
	n := d.count(8)
	v := make([]float64, 0, n)
	for range n {
		v = append(v, d.f64())
	}
	return v
}

// skipF64 skips a fixed-size float64 array (a covariance).
func (d *dec) skipF64(n int) { d.take(8*n, 8) }

// stamp reads a time: builtin_interfaces/Time (int32 sec, uint32 nanosec)
// in ROS 2, time (uint32 secs, uint32 nsecs) in ROS 1; in nanoseconds.
func (d *dec) stamp() int64 {
	var sec int64
	if d.ros1 {
		sec = int64(d.u32())
	} else {
		sec = int64(int32(d.u32()))
	}
	return sec*1e9 + int64(d.u32())
}

// header reads std_msgs/Header.
func (d *dec) header() (stamp int64, frame string) {
	if d.ros1 {
		d.u32() // seq
	}
	stamp = d.stamp()
	return stamp, d.str()
}

// elem reads one element of a numeric array of kind k.
func (d *dec) elem(k kind) float64 {
	switch k {
	case kF64:
		return d.f64()
	case kF32:
		return d.f32()
	case kI8:
		return float64(int8(d.u8()))
	case kU8:
		return float64(d.u8())
	case kI16:
		return float64(int16(d.u16()))
	case kU16:
		return float64(d.u16())
	case kI32:
		return float64(int32(d.u32()))
	case kU32:
		return float64(d.u32())
	case kI64:
		return float64(int64(d.u64()))
	case kU64:
		return float64(d.u64())
	}
	panic("bag: unknown element kind")
}

// kind is the element type of a std_msgs numeric message.
type kind int

const (
	kF64 kind = iota
	kF32
	kI8
	kU8
	kI16
	kU16
	kI32
	kU32
	kI64
	kU64
)

func (k kind) size() int {
	switch k {
	case kF64, kI64, kU64:
		return 8
	case kF32, kI32, kU32:
		return 4
	case kI16, kU16:
		return 2
	}
	return 1
}
