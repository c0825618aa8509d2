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
// Memory stays a buffer's size whatever the task's; the file takes ~8 bytes per distinct
// feature of a conversation (a few hundred each). Two features share a hash with a
// chance of about 2⁻⁶⁴ per pair: over 50,000 conversations and 25 drivers, less than
// 10⁻¹⁰ that one conversation is listed under a driver it lacks.
//
// A FeatureLog is written by one goroutine; an error while writing is kept and
// returned by Members, whose caller then falls back to the second pass.
type FeatureLog struct {
	file *os.File
	path string // to remove on Close, when the file could not be unlinked at once
	w    *bufio.Writer
	size int64
	seed maphash.Seed
	rec  []byte
	hash []uint64
	err  error
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

// Members gives every driver of m still without its conversations all those the log
// recorded with its feature, in upload order, as m's second pass would; it is called
// once, in place of that pass.
func (l *FeatureLog) Members(m *Members) error {
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
	r := bufio.NewReaderSize(io.NewSectionReader(l.file, 0, l.size), 64<<10)
	var h [8]byte
	for {
		seq, err := binary.ReadUvarint(r)
		if errors.Is(err, io.EOF) {
			break
		}
		n, nerr := binary.ReadUvarint(r)
		if err = errors.Join(err, nerr); err != nil {
			return fmt.Errorf("drivers: feature log: %w", err)
		}
		for range n {
			if _, err := io.ReadFull(r, h[:]); err != nil {
				return fmt.Errorf("drivers: feature log: %w", err)
			}
			if i, ok := wanted[binary.LittleEndian.Uint64(h[:])]; ok {
				m.drivers[i].Conversations = append(m.drivers[i].Conversations, int(seq))
			}
		}
	}
	for _, i := range m.index { // the log is in the order diagnoses were stored
		slices.Sort(m.drivers[i].Conversations)
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
