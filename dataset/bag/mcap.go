package bag

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/foxglove/mcap/go/mcap"
)

// ReadMCAP reads an MCAP file of size bytes (ROS 2 bags since Iron; any MCAP
// whose channels carry ros2msg/ros2idl or ros1msg schemas) through the
// foxglove mcap lexer, in file order, chunks decompressed and their CRCs
// checked, and the data section's CRC (the Data End record's, when the
// writer recorded one) checked too, so that a flipped bit in an unchunked
// file is an error rather than a pose moved by 512 s. A file must end with
// its footer: one that stops earlier, even at a
// record boundary, is ErrTruncated, so an interrupted recording is never
// taken for a complete one.
func ReadMCAP(r io.Reader, size int64, keep func(topic string) bool) (c *Contents, err error) {
	// mcap v1.9.0's lexer indexes a fixed 32-byte buffer with a chunk's
	// compression-name length, and panics on a corrupt one: turn that into
	// an error (found by FuzzRead).
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, fmt.Errorf("corrupt MCAP file (%v)", p)
		}
	}()
	lim := int(min(size, 1<<31-1))
	crc := &crcTail{}
	r = io.TeeReader(r, crc)
	lex, err := mcap.NewLexer(r, &mcap.LexerOptions{
		ValidateChunkCRCs: true,
		MaxRecordSize:     max(lim, 1),
		// a chunk decompresses to at most this (a bomb is refused, not allocated)
		MaxDecompressedChunkSize: int(min(int64(lim)*256+1<<20, 1<<30)),
	})
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w MCAP file (%d bytes)", ErrTruncated, size)
		}
		return nil, fmt.Errorf("not an MCAP file: %w", err)
	}
	defer lex.Close()
	c = &Contents{Format: "mcap"}
	schemas := map[uint16]*mcap.Schema{}
	channels := map[uint16]*Topic{}
	var buf []byte
	var msg mcap.Message
	footer := false
	records := 0
	for {
		tok, rec, err := lex.Next(buf)
		if err != nil {
			if errors.Is(err, io.EOF) {
				if !footer {
					return nil, fmt.Errorf("%w after %d records (no MCAP footer): the recording was interrupted or the copy cut short (`mcap recover` salvages an interrupted recording)", ErrTruncated, records)
				}
				return c, nil
			}
			if errors.Is(err, mcap.ErrRecordTooLarge) {
				return nil, fmt.Errorf("%w after %d records: a record runs past the end of the file (or its length is corrupt)", ErrTruncated, records)
			}
			var tr *mcap.ErrTruncatedRecord
			if errors.As(err, &tr) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("%w after %d records: %v", ErrTruncated, records, libMsg(err))
			}
			return nil, fmt.Errorf("corrupt MCAP file after %d records: %v", records, libMsg(err))
		}
		if cap(rec) > cap(buf) {
			buf = rec
		}
		records++
		if footer {
			return nil, fmt.Errorf("corrupt MCAP file: a record after the footer")
		}
		switch tok {
		case mcap.TokenSchema:
			s, err := mcap.ParseSchema(rec)
			if err != nil {
				return nil, fmt.Errorf("corrupt MCAP schema record: %v", libMsg(err))
			}
			s.Data = nil
			schemas[s.ID] = s
		case mcap.TokenChannel:
			ch, err := mcap.ParseChannel(rec)
			if err != nil {
				return nil, fmt.Errorf("corrupt MCAP channel record: %v", libMsg(err))
			}
			if _, dup := channels[ch.ID]; dup {
				continue // the summary section repeats the channels
			}
			typ := ""
			if s := schemas[ch.SchemaID]; s != nil && ch.SchemaID != 0 {
				typ = s.Name
			}
			t := c.topic(ch.Topic, typ, ch.MessageEncoding)
			if t.Type == "" {
				t.Type = typ
			}
			channels[ch.ID] = t
		case mcap.TokenMessage:
			if err := msg.PopulateFrom(rec, false); err != nil {
				return nil, fmt.Errorf("corrupt MCAP message record: %v", libMsg(err))
			}
			t := channels[msg.ChannelID]
			if t == nil {
				return nil, fmt.Errorf("corrupt MCAP file: a message on channel %d, which has no channel record before it", msg.ChannelID)
			}
			t.Count++
			if keep(t.Name) {
				if msg.LogTime > 1<<63-1 {
					return nil, fmt.Errorf("corrupt MCAP file: message log time %d ns out of range", msg.LogTime)
				}
				t.Messages = append(t.Messages, Message{LogTime: int64(msg.LogTime), Data: append([]byte(nil), msg.Data...)})
			}
		case mcap.TokenDataEnd:
			de, err := mcap.ParseDataEnd(rec)
			if err != nil {
				return nil, fmt.Errorf("corrupt MCAP data end record: %v", libMsg(err))
			}
			// The CRC covers every byte before the Data End record (its
			// opcode, length and content are the last 9 + len(rec) read).
			if got := crc.before(9 + len(rec)); de.DataSectionCRC != 0 && got != de.DataSectionCRC {
				return nil, fmt.Errorf("corrupt MCAP file: the data section's CRC is %08x, the file records %08x (a damaged copy: bits changed in the messages?)", got, de.DataSectionCRC)
			}
		case mcap.TokenFooter:
			footer = true
		}
	}
}

// crcTail is the CRC-32 (IEEE) of the bytes written to it, holding back the
// last crcHold of them so that the CRC of everything before a record just
// read can be taken (before).
type crcTail struct {
	sum  uint32
	tail []byte
}

const crcHold = 64

func (c *crcTail) Write(p []byte) (int, error) {
	c.tail = append(c.tail, p...)
	if n := len(c.tail) - crcHold; n > 0 {
		c.sum = crc32.Update(c.sum, crc32.IEEETable, c.tail[:n])
		c.tail = append(c.tail[:0], c.tail[n:]...)
	}
	return len(p), nil
}

// before returns the CRC of all bytes written but the last n (n ≤ crcHold;
// 0 when more are asked for, which no Data End record of this version needs).
func (c *crcTail) before(n int) uint32 {
	if n > len(c.tail) {
		return 0
	}
	return crc32.Update(c.sum, crc32.IEEETable, c.tail[:len(c.tail)-n])
}

// libMsg is a reader library's error message for one of ours: control
// characters that came from the file (an MCAP library's "unsupported
// compression: " followed by the record's bytes, a newline among them)
// escaped, so that the error stays one line.
func libMsg(err error) string {
	s := err.Error()
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
