package bag

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Message is one serialized message as stored in a bag.
type Message struct {
	LogTime int64 // ns since the Unix epoch: when the recorder received it
	Data    []byte
}

// Topic is one topic of a bag with the messages that were kept.
type Topic struct {
	Name string
	// Type is the message type as the bag names it (geometry_msgs/msg/Twist
	// in ROS 2, geometry_msgs/Twist in ROS 1); "" when the bag carries no
	// schema for it.
	Type string
	// Encoding is the serialization: "cdr" (ROS 2) or "ros1"; other MCAP
	// message encodings (json, protobuf, …) are kept as named and refused when
	// decoded.
	Encoding string
	Count    int       // messages in the bag
	Messages []Message // the messages kept (all of them when the topic was asked for)
}

// Contents is what Read found: every topic, with the messages of the topics
// asked for, in file order.
type Contents struct {
	Format string // "mcap" or "ros1"
	Topics map[string]*Topic
}

// Names lists the bag's topics, sorted, with their types, for messages.
func (c *Contents) Names() []string {
	var n []string
	for _, t := range c.Topics {
		typ := t.Type
		if typ == "" {
			typ = "no schema"
		}
		n = append(n, t.Name+" ("+typ+")")
	}
	sort.Strings(n)
	return n
}

func (c *Contents) topic(name, typ, enc string) *Topic {
	if c.Topics == nil {
		c.Topics = map[string]*Topic{}
	}
	t := c.Topics[name]
	if t == nil {
		t = &Topic{Name: name, Type: typ, Encoding: enc}
		c.Topics[name] = t
	}
	return t
}

var (
	mcapMagic = []byte("\x89MCAP0\r\n")
	ros1Magic = []byte("#ROSBAG V2.0\n")
)

// ErrFormat is a file that is neither an MCAP file nor a ROS 1 bag (v2.0).
var ErrFormat = errors.New("not an MCAP file or a ROS 1 bag (v2.0)")

// ErrTruncated is a bag that ends early: a recording that was interrupted, a
// copy that was cut short.
var ErrTruncated = errors.New("truncated")

// ReadFile reads the bag at path, which is an MCAP file or a ROS 1 bag
// (told apart by their first bytes), keeping the messages of the topics keep
// says yes to. Errors name the file.
func ReadFile(path string, keep func(topic string) bool) (*Contents, error) {
	return ReadFileThrough(path, keep, nil)
}

// ReadFileThrough is ReadFile with the file's bytes passed through wrap
// (given the file and its size; a progress counter, for one); nil wraps
// nothing.
func ReadFileThrough(path string, keep func(topic string) bool, wrap func(r io.Reader, size int64) io.Reader) (*Contents, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var r io.Reader = f
	size := st.Size()
	if !st.Mode().IsRegular() {
		// a pipe (a shell's <(zstdcat run.mcap.zst)) has no size, which
		// the readers need to tell a cut file: it is read whole first
		b, err := io.ReadAll(io.LimitReader(f, dataset.MaxFileBytes+1))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if int64(len(b)) > dataset.MaxFileBytes {
			return nil, fmt.Errorf("%s: a bag read from a pipe is held in memory, and this one is above %d MiB: give it as a file", path, dataset.MaxFileBytes>>20)
		}
		r, size = bytes.NewReader(b), int64(len(b))
	}
	if wrap != nil {
		r = wrap(r, size)
	}
	c, err := Read(r, size, keep)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Read reads a bag of size bytes from r (see ReadFile).
func Read(r io.Reader, size int64, keep func(topic string) bool) (*Contents, error) {
	head := make([]byte, len(ros1Magic))
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	head = head[:n]
	if n == 0 {
		return nil, errors.New("empty file")
	}
	r = io.MultiReader(bytes.NewReader(head), r)
	switch {
	case bytes.HasPrefix(head, mcapMagic):
		return ReadMCAP(r, size, keep)
	case bytes.Equal(head, ros1Magic):
		return ReadROS1(r, size, keep)
	case len(head) < len(ros1Magic) && (bytes.HasPrefix(mcapMagic, head[:min(n, len(mcapMagic))]) || bytes.HasPrefix(ros1Magic, head)) && n > 0:
		return nil, fmt.Errorf("%w: %d bytes", ErrTruncated, n)
	}
	return nil, ErrFormat
}
