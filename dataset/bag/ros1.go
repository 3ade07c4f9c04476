package bag

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/pierrec/lz4/v4"
)

// ROS 1 bag (format 2.0) record opcodes.
const (
	opMessage    = 0x02
	opBagHeader  = 0x03
	opIndexData  = 0x04
	opChunk      = 0x05
	opChunkInfo  = 0x06
	opConnection = 0x07
)

// ReadROS1 reads a ROS 1 bag (format 2.0) of size bytes, chunks uncompressed,
// bz2 or lz4, in file order.
//
// It is our own reader, not github.com/foxglove/go-rosbag (whose writer the
// tests use): that reader (v0.0.7) panics on a record header shorter than 4
// bytes and allocates whatever length a corrupt record claims. Here every
// length is checked against the bytes that remain before anything is
// allocated. A bag must be complete: its header's index position must be
// set (rosbag writes it when the recording ends; `rosbag reindex` repairs an
// interrupted one), the chunk section must end exactly there, and the index
// section must be whole records to the end of the file; otherwise the error
// is ErrTruncated.
func ReadROS1(r io.Reader, size int64, keep func(topic string) bool) (*Contents, error) {
	rd := &ros1Reader{r: bufio.NewReaderSize(r, 1<<16), size: size, keep: keep,
		c: &Contents{Format: "ros1"}, conns: map[uint32]*Topic{}}
	magic := make([]byte, len(ros1Magic))
	if _, err := io.ReadFull(rd.r, magic); err != nil || !bytes.Equal(magic, ros1Magic) {
		return nil, ErrFormat
	}
	rd.off = int64(len(ros1Magic))
	op, hdr, _, err := rd.record(false)
	if err != nil {
		return nil, err
	}
	if op != opBagHeader {
		return nil, fmt.Errorf("corrupt ROS 1 bag: first record has op 0x%02x, not the bag header", op)
	}
	indexPos, err := u64Field(hdr, "index_pos")
	if err != nil {
		return nil, fmt.Errorf("corrupt ROS 1 bag header: %v", libMsg(err))
	}
	switch {
	case indexPos == 0:
		return nil, fmt.Errorf("%w: the bag has no index (an interrupted recording, or one still being written); run `rosbag reindex` on it", ErrTruncated)
	case indexPos > uint64(size):
		return nil, fmt.Errorf("%w: the bag's index is at byte %d, beyond its %d bytes", ErrTruncated, indexPos, size)
	}
	for rd.off < int64(indexPos) {
		op, hdr, data, err := rd.record(true)
		if err != nil {
			return nil, err
		}
		if rd.off > int64(indexPos) {
			return nil, fmt.Errorf("corrupt ROS 1 bag: a record crosses the index position %d", indexPos)
		}
		if err := rd.handle(op, hdr, data, false); err != nil {
			return nil, err
		}
	}
	connCount, err1 := u32Field(hdr, "conn_count")
	chunkCount, err2 := u32Field(hdr, "chunk_count")
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("corrupt ROS 1 bag header: %v", libMsg(cmpErr(err1, err2)))
	}
	var conns, infos uint32
	for rd.off < size {
		op, _, _, err := rd.record(false)
		if err != nil {
			return nil, err
		}
		switch op {
		case opConnection:
			conns++
		case opChunkInfo:
			infos++
		}
	}
	if conns != connCount || infos != chunkCount {
		return nil, fmt.Errorf("%w: the index holds %d connections and %d chunk infos, the bag header says %d and %d", ErrTruncated, conns, infos, connCount, chunkCount)
	}
	if _, err := rd.r.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("corrupt ROS 1 bag: more bytes than its size %d", size)
	}
	return rd.c, nil
}

type ros1Reader struct {
	r     *bufio.Reader
	off   int64
	size  int64
	keep  func(string) bool
	c     *Contents
	conns map[uint32]*Topic
	lz4   *lz4.Reader
}

// record reads one record at the file level; with wantData its data is
// returned, else skipped.
func (rd *ros1Reader) record(wantData bool) (op byte, hdr map[string][]byte, data []byte, err error) {
	start := rd.off
	h, err := rd.block("header")
	if err != nil {
		return 0, nil, nil, err
	}
	hdr, err = parseFields(h)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("corrupt ROS 1 record header at byte %d: %v", start, libMsg(err))
	}
	op, err = opField(hdr)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("corrupt ROS 1 record header at byte %d: %v", start, libMsg(err))
	}
	if op != opChunk && op != opMessage && op != opConnection {
		wantData = false
	}
	if wantData {
		data, err = rd.block("data")
		return op, hdr, data, err
	}
	n, err := rd.length("data")
	if err != nil {
		return 0, nil, nil, err
	}
	if _, err := rd.r.Discard(int(n)); err != nil {
		return 0, nil, nil, rd.short("data", err)
	}
	rd.off += n
	return op, hdr, nil, nil
}

func (rd *ros1Reader) length(what string) (int64, error) {
	var b [4]byte
	if _, err := io.ReadFull(rd.r, b[:]); err != nil {
		return 0, rd.short(what+" length", err)
	}
	rd.off += 4
	n := int64(binary.LittleEndian.Uint32(b[:]))
	if n > rd.size-rd.off {
		return 0, fmt.Errorf("%w: a record %s of %d bytes at byte %d runs past the end of the file (%d bytes)", ErrTruncated, what, n, rd.off, rd.size)
	}
	return n, nil
}

func (rd *ros1Reader) block(what string) ([]byte, error) {
	n, err := rd.length(what)
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(rd.r, b); err != nil {
		return nil, rd.short(what, err)
	}
	rd.off += n
	return b, nil
}

func (rd *ros1Reader) short(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: the file ends inside a record %s at byte %d", ErrTruncated, what, rd.off)
	}
	return err
}

// handle takes one record of the chunk section (or of a chunk: inChunk).
func (rd *ros1Reader) handle(op byte, hdr map[string][]byte, data []byte, inChunk bool) error {
	switch op {
	case opConnection:
		id, err := u32Field(hdr, "conn")
		if err != nil {
			return fmt.Errorf("corrupt ROS 1 connection record: %v", libMsg(err))
		}
		topic, ok := hdr["topic"]
		if !ok {
			return errors.New("corrupt ROS 1 connection record: no topic")
		}
		ch, err := parseFields(data)
		if err != nil {
			return fmt.Errorf("corrupt ROS 1 connection header of %q: %v", topic, libMsg(err))
		}
		if _, dup := rd.conns[id]; !dup {
			rd.conns[id] = rd.c.topic(string(topic), string(ch["type"]), "ros1")
		}
	case opMessage:
		id, err := u32Field(hdr, "conn")
		if err != nil {
			return fmt.Errorf("corrupt ROS 1 message record: %v", libMsg(err))
		}
		tm, ok := hdr["time"]
		if !ok || len(tm) != 8 {
			return errors.New("corrupt ROS 1 message record: no 8-byte time")
		}
		t := rd.conns[id]
		if t == nil {
			return fmt.Errorf("corrupt ROS 1 bag: a message on connection %d, which has no connection record before it", id)
		}
		t.Count++
		if rd.keep(t.Name) {
			ns := int64(binary.LittleEndian.Uint32(tm[:4]))*1e9 + int64(binary.LittleEndian.Uint32(tm[4:]))
			// a copy: data may be a slice of a whole decompressed chunk
			t.Messages = append(t.Messages, Message{LogTime: ns, Data: append([]byte(nil), data...)})
		}
	case opChunk:
		if inChunk {
			return errors.New("corrupt ROS 1 bag: a chunk inside a chunk")
		}
		return rd.chunk(hdr, data)
	case opBagHeader:
		return errors.New("corrupt ROS 1 bag: a second bag header")
	}
	return nil
}

func (rd *ros1Reader) chunk(hdr map[string][]byte, data []byte) error {
	size, err := u32Field(hdr, "size")
	if err != nil {
		return fmt.Errorf("corrupt ROS 1 chunk record: %v", libMsg(err))
	}
	// a bomb or a corrupt size is refused before it is allocated
	if int64(size) > int64(len(data))*1024+64<<20 || size > 1<<30 {
		return fmt.Errorf("corrupt ROS 1 chunk: %d bytes claimed from %d compressed", size, len(data))
	}
	var src io.Reader
	switch comp := string(hdr["compression"]); comp {
	case "none":
		if int(size) != len(data) {
			return fmt.Errorf("corrupt ROS 1 chunk: size %d, but %d bytes", size, len(data))
		}
		return rd.records(data)
	case "bz2":
		src = bzip2.NewReader(bytes.NewReader(data))
	case "lz4":
		if rd.lz4 == nil {
			rd.lz4 = lz4.NewReader(nil) // its buffers are large: one per bag
		}
		rd.lz4.Reset(bytes.NewReader(data))
		src = rd.lz4
	default:
		return fmt.Errorf("ROS 1 chunk compression %q is not supported (none, bz2, lz4)", comp)
	}
	// read as it comes rather than allocating the claimed size up front
	raw, err := io.ReadAll(io.LimitReader(src, int64(size)+1))
	if err != nil {
		return fmt.Errorf("corrupt ROS 1 chunk: decompressing: %v", libMsg(err))
	}
	if len(raw) != int(size) {
		return fmt.Errorf("corrupt ROS 1 chunk: %d bytes decompressed, its header says %d", len(raw), size)
	}
	return rd.records(raw)
}

// records takes the records inside an uncompressed chunk.
func (rd *ros1Reader) records(b []byte) error {
	for len(b) > 0 {
		h, rest, ok := cut32(b)
		if !ok {
			return errors.New("corrupt ROS 1 chunk: a record header runs past the chunk")
		}
		data, rest, ok := cut32(rest)
		if !ok {
			return errors.New("corrupt ROS 1 chunk: a record's data runs past the chunk")
		}
		b = rest
		hdr, err := parseFields(h)
		if err != nil {
			return fmt.Errorf("corrupt ROS 1 record header in a chunk: %v", libMsg(err))
		}
		op, err := opField(hdr)
		if err != nil {
			return fmt.Errorf("corrupt ROS 1 record header in a chunk: %v", libMsg(err))
		}
		if err := rd.handle(op, hdr, data, true); err != nil {
			return err
		}
	}
	return nil
}

// cut32 splits a uint32-length-prefixed block off b.
func cut32(b []byte) (block, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, false
	}
	return b[4 : 4+n], b[4+n:], true
}

// parseFields splits a record header (or connection header) into its
// name=value fields.
func parseFields(b []byte) (map[string][]byte, error) {
	m := map[string][]byte{}
	for len(b) > 0 {
		f, rest, ok := cut32(b)
		if !ok {
			return nil, errors.New("a field runs past the header")
		}
		b = rest
		name, value, ok := bytes.Cut(f, []byte("="))
		if !ok {
			return nil, errors.New("a field without '='")
		}
		m[string(name)] = value
	}
	return m, nil
}

func opField(h map[string][]byte) (byte, error) {
	v, ok := h["op"]
	if !ok || len(v) != 1 {
		return 0, errors.New("no 1-byte op field")
	}
	return v[0], nil
}

func u32Field(h map[string][]byte, name string) (uint32, error) {
	v, ok := h[name]
	if !ok || len(v) != 4 {
		return 0, fmt.Errorf("no 4-byte %s field", name)
	}
	return binary.LittleEndian.Uint32(v), nil
}

func u64Field(h map[string][]byte, name string) (uint64, error) {
	v, ok := h[name]
	if !ok || len(v) != 8 {
		return 0, fmt.Errorf("no 8-byte %s field", name)
	}
	return binary.LittleEndian.Uint64(v), nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
