package ingest

import (
	"encoding/binary"
	"errors"

	"github.com/checkup-dev/checkup/db/transcript"
)

// The spill file holds messages in a compact binary form: every string as a uvarint
// length and its bytes, every list as a uvarint count and its items. Only this package
// writes and reads it, within one upload.

// errCodec is a record the spill gave back damaged, which only a failing disk can cause.
var errCodec = errors.New("ingest: spill: damaged record")

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendMessage(b []byte, m *transcript.Message) []byte {
	b = appendString(b, string(m.Role))
	b = appendString(b, m.Content)
	b = appendString(b, m.Name)
	b = appendString(b, m.ToolCallID)
	b = binary.AppendUvarint(b, uint64(len(m.ToolCalls)))
	for _, tc := range m.ToolCalls {
		b = appendString(b, tc.ID)
		b = appendString(b, tc.Name)
		b = appendString(b, tc.Arguments)
	}
	return b
}

func appendMessages(b []byte, msgs []transcript.Message) []byte {
	b = binary.AppendUvarint(b, uint64(len(msgs)))
	for i := range msgs {
		b = appendMessage(b, &msgs[i])
	}
	return b
}

// decoder reads what the append functions wrote.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCodec
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.err = errCodec
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) message() transcript.Message {
	m := transcript.Message{Role: transcript.Role(d.string()), Content: d.string(), Name: d.string(), ToolCallID: d.string()}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err = errCodec
		return m
	}
	for range n {
		m.ToolCalls = append(m.ToolCalls, transcript.ToolCall{ID: d.string(), Name: d.string(), Arguments: d.string()})
	}
	return m
}

func (d *decoder) messages() []transcript.Message {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err = errCodec
		return nil
	}
	msgs := make([]transcript.Message, 0, n)
	for range n {
		msgs = append(msgs, d.message())
	}
	return msgs
}
