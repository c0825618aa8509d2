package drivers

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"
)

// FeatureLog keeps the features of every conversation the search counts, as 64-bit
// hashes in a temporary file, so that the drivers' conversations are found by reading
// the file back instead of reading and splitting every labelled conversation again.
// The process holds a buffer of it whatever the task's size; the file takes 8 bytes
// per distinct feature of a conversation, ~1.6 KB for the sample's (80 MB at 50,000
// conversations, in memory where the temporary directory is). Two features share a
// hash with a chance of about 2⁻⁶⁴ per pair: over 50,000 conversations and 25 drivers,
// less than 10⁻¹⁰ that one conversation is listed under a driver it lacks.
//
// A FeatureLog is written by one goroutine; an error while writing is kept and
// returned by FillMembers, whose caller then falls back to the second pass.
type FeatureLog struct {
	file *os.File
	path string // to remove on Close, when the file could not be unlinked at once
	w    *bufio.Writer
	size int64 // the bytes written to w, flushed or not
	seed maphash.Seed
	rec  []byte   // one conversation's record, reused
	hash []uint64 // one conversation's hashes, reused
	err  error    // the first write that failed
}

// NewFeatureLog creates the log's file in dir (os.TempDir when empty). The file is
// unlinked at once where the system allows it, so a worker that dies leaves nothing.
func NewFeatureLog(dir string) (*FeatureLog, error) {
	f, err := os.CreateTemp(dir, "checkup-features-*")
	if err != nil {
		return nil, fmt.Errorf("drivers: feature log: %w", err)
	}
	l := &FeatureLog{file: f, w: bufio.NewWriterSize(f, 64<<10), seed: maphash.MakeSeed()}
	if os.Remove(f.Name()) != nil {
		l.path = f.Name()
	}
	return l, nil
}

// Add records c's distinct features under its seq.
func (l *FeatureLog) Add(c Conversation) {
	if l.err != nil {
		return
	}
	l.hash = l.hash[:0]
	for _, f := range c.Features {
		l.hash = append(l.hash, maphash.Comparable(l.seed, f))
	}
	slices.Sort(l.hash)
	l.hash = slices.Compact(l.hash)
	l.rec = binary.AppendUvarint(l.rec[:0], uint64(c.Seq))
	l.rec = binary.AppendUvarint(l.rec, uint64(len(l.hash)))
	for _, h := range l.hash {
		l.rec = binary.LittleEndian.AppendUint64(l.rec, h)
	}
	n, err := l.w.Write(l.rec)
	l.size += int64(n)
	if err != nil {
		l.err = fmt.Errorf("drivers: feature log: %w", err)
	}
}

// FillMembers gives every driver of m still without its conversations all those the
// log recorded with its feature, in upload order, as m's second pass would; it is
// called once, in place of that pass. On an error m is left as it was, for that pass.
func (l *FeatureLog) FillMembers(m *Members) error {
	if l.err != nil {
		return l.err
	}
	if err := l.w.Flush(); err != nil {
		return fmt.Errorf("drivers: feature log: %w", err)
	}
	wanted := make(map[uint64]int, len(m.index))
	for f, i := range m.index {
		wanted[maphash.Comparable(l.seed, f)] = i
	}
	found := make(map[int][]int, len(m.index)) // driver → its conversations
	r := bufio.NewReaderSize(io.NewSectionReader(l.file, 0, l.size), 64<<10)
	var h [8]byte
	for {
		seq, err := binary.ReadUvarint(r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("drivers: feature log: %w", err)
		}
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return fmt.Errorf("drivers: feature log: %w", err)
		}
		for range n {
			if _, err := io.ReadFull(r, h[:]); err != nil {
				return fmt.Errorf("drivers: feature log: %w", err)
			}
			if i, ok := wanted[binary.LittleEndian.Uint64(h[:])]; ok {
				found[i] = append(found[i], int(seq))
			}
		}
	}
	for i, seqs := range found {
		slices.Sort(seqs) // the log is in the order diagnoses were stored
		m.drivers[i].Conversations = seqs
	}
	return nil
}

// Close removes the log's file.
func (l *FeatureLog) Close() error {
	err := l.file.Close()
	if l.path != "" {
		err = errors.Join(err, os.Remove(l.path))
	}
	return err
}
