package ingest

import (
	"bufio"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
)

// spill regroups records that arrive in file order but must be read grouped and sorted:
// CSV rows of interleaved conversations, trace spans of one conversation spread over the
// file. Records wait in memory up to a budget; past it they are sorted and written to a
// temporary file as a run, and reading merges the runs, so memory stays bounded by the
// budget (plus a small read buffer per run) whatever the size of the upload.
//
// Records are read in order of (group, k1, k2, seq): seq is the file order, so records
// with equal keys keep it.
type spill struct {
	budget int
	dir    string

	mem      []spillRec
	memBytes int

	file    *os.File
	w       *bufio.Writer
	runs    []spillRun
	written int64
	seq     uint64
}

// spillRec is one record and its sort keys.
type spillRec struct {
	group uint32
	k1    float64
	k2    int64
	seq   uint64
	data  []byte
}

// spillRun is one sorted run in the file.
type spillRun struct{ off, n int64 }

// recOverhead is what a record costs in memory beyond its data, for the budget.
const recOverhead = 64

// spillRunBuffer is the read buffer of each run while merging.
const spillRunBuffer = 32 << 10

// newSpill starts an empty spill that keeps up to budget bytes in memory and writes
// runs to a temporary file in dir ("" for the system's).
func newSpill(budget int, dir string) *spill {
	return &spill{budget: budget, dir: dir}
}

// add appends a record; data is copied.
func (s *spill) add(group uint32, k1 float64, k2 int64, data []byte) error {
	s.seq++
	return s.addSeq(spillRec{group: group, k1: k1, k2: k2, seq: s.seq, data: slices.Clone(data)})
}

func (s *spill) addSeq(r spillRec) error {
	s.mem = append(s.mem, r)
	s.memBytes += len(r.data) + recOverhead
	if s.memBytes > s.budget {
		return s.flush()
	}
	return nil
}

// flush sorts the records in memory and writes them as one run.
func (s *spill) flush() error {
	if len(s.mem) == 0 {
		return nil
	}
	if s.file == nil {
		f, err := os.CreateTemp(s.dir, "checkup-upload-*")
		if err != nil {
			return fmt.Errorf("ingest: spill: %w", err)
		}
		// Unlinked at once: the space is freed when the file is closed, even if the
		// process dies before it could clean up.
		_ = os.Remove(f.Name())
		s.file, s.w = f, bufio.NewWriterSize(f, 256<<10)
	}
	sortRecs(s.mem)
	start := s.written
	var hdr [4*binary.MaxVarintLen64 + 8]byte
	for i := range s.mem {
		r := &s.mem[i]
		n := binary.PutUvarint(hdr[:], uint64(r.group))
		binary.LittleEndian.PutUint64(hdr[n:], math.Float64bits(r.k1))
		n += 8
		n += binary.PutVarint(hdr[n:], r.k2)
		n += binary.PutUvarint(hdr[n:], r.seq)
		n += binary.PutUvarint(hdr[n:], uint64(len(r.data)))
		if _, err := s.w.Write(hdr[:n]); err != nil {
			return fmt.Errorf("ingest: spill: %w", err)
		}
		if _, err := s.w.Write(r.data); err != nil {
			return fmt.Errorf("ingest: spill: %w", err)
		}
		s.written += int64(n + len(r.data))
		r.data = nil
	}
	s.runs = append(s.runs, spillRun{off: start, n: s.written - start})
	s.mem, s.memBytes = s.mem[:0], 0
	return nil
}

// sortRecs puts records in reading order.
func sortRecs(recs []spillRec) {
	slices.SortFunc(recs, func(a, b spillRec) int {
		if c := cmp.Compare(a.group, b.group); c != 0 {
			return c
		}
		if c := cmp.Compare(a.k1, b.k1); c != 0 {
			return c
		}
		if c := cmp.Compare(a.k2, b.k2); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
}

// spilled is how many bytes went to the temporary file.
func (s *spill) spilled() int64 { return s.written }

// each calls fn with every record in reading order. When remap is not nil, it is
// applied to every group first (the groups are only known once the whole file has been
// read): the records are then sorted again, through a second spill with the same
// budget. data is valid only during the call.
func (s *spill) each(remap func(uint32) uint32, fn func(group uint32, data []byte) error) error {
	if remap != nil && len(s.runs) == 0 {
		for i := range s.mem {
			s.mem[i].group = remap(s.mem[i].group)
		}
		remap = nil
	}
	if remap != nil {
		again := newSpill(s.budget, s.dir)
		defer again.close()
		err := s.scan(func(r spillRec) error {
			r.group, r.data = remap(r.group), slices.Clone(r.data)
			return again.addSeq(r)
		})
		if err != nil {
			return err
		}
		err = again.each(nil, fn)
		s.written += again.written
		return err
	}
	if len(s.runs) == 0 {
		sortRecs(s.mem)
		for _, r := range s.mem {
			if err := fn(r.group, r.data); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.flush(); err != nil {
		return err
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("ingest: spill: %w", err)
	}
	return s.merge(fn)
}

// scan calls fn with every record in no particular order (the runs, then memory).
func (s *spill) scan(fn func(spillRec) error) error {
	if s.w != nil {
		if err := s.w.Flush(); err != nil {
			return fmt.Errorf("ingest: spill: %w", err)
		}
	}
	for _, run := range s.runs {
		rd := newRunReader(s.file, run)
		for {
			r, err := rd.next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	for _, r := range s.mem {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// merge reads the runs together, smallest record first.
func (s *spill) merge(fn func(uint32, []byte) error) error {
	h := make(runHeap, 0, len(s.runs))
	for _, run := range s.runs {
		rd := newRunReader(s.file, run)
		r, err := rd.next()
		if errors.Is(err, io.EOF) {
			continue
		}
		if err != nil {
			return err
		}
		h = append(h, &runHead{rd: rd, rec: r})
	}
	heap.Init(&h)
	for len(h) > 0 {
		top := h[0]
		if err := fn(top.rec.group, top.rec.data); err != nil {
			return err
		}
		r, err := top.rd.next()
		switch {
		case errors.Is(err, io.EOF):
			heap.Pop(&h)
		case err != nil:
			return err
		default:
			top.rec = r
			heap.Fix(&h, 0)
		}
	}
	return nil
}

// close releases the temporary file.
func (s *spill) close() {
	if s.file != nil {
		_ = s.file.Close()
		s.file = nil
	}
	s.mem = nil
}

// runReader reads the records of one run.
type runReader struct {
	br  *bufio.Reader
	buf []byte
}

func newRunReader(f *os.File, run spillRun) *runReader {
	return &runReader{br: bufio.NewReaderSize(io.NewSectionReader(f, run.off, run.n), spillRunBuffer)}
}

// next returns the next record; its data stays valid until the following call.
func (r *runReader) next() (spillRec, error) {
	var rec spillRec
	g, err := binary.ReadUvarint(r.br)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return rec, io.EOF
		}
		return rec, fmt.Errorf("ingest: spill: read: %w", err)
	}
	var k1 [8]byte
	if _, err := io.ReadFull(r.br, k1[:]); err != nil {
		return rec, fmt.Errorf("ingest: spill: read: %w", err)
	}
	k2, err := binary.ReadVarint(r.br)
	if err != nil {
		return rec, fmt.Errorf("ingest: spill: read: %w", err)
	}
	seq, err := binary.ReadUvarint(r.br)
	if err != nil {
		return rec, fmt.Errorf("ingest: spill: read: %w", err)
	}
	n, err := binary.ReadUvarint(r.br)
	if err != nil {
		return rec, fmt.Errorf("ingest: spill: read: %w", err)
	}
	if uint64(cap(r.buf)) < n {
		r.buf = make([]byte, n)
	}
	r.buf = r.buf[:n]
	if _, err := io.ReadFull(r.br, r.buf); err != nil {
		return rec, fmt.Errorf("ingest: spill: read: %w", err)
	}
	rec = spillRec{group: uint32(g), k1: math.Float64frombits(binary.LittleEndian.Uint64(k1[:])), k2: k2, seq: seq, data: r.buf}
	return rec, nil
}

// runHead is a run's next record in the merge.
type runHead struct {
	rd  *runReader
	rec spillRec
}

// runHeap orders run heads by their next record.
type runHeap []*runHead

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	a, b := h[i].rec, h[j].rec
	if a.group != b.group {
		return a.group < b.group
	}
	if c := cmp.Compare(a.k1, b.k1); c != 0 {
		return c < 0
	}
	if a.k2 != b.k2 {
		return a.k2 < b.k2
	}
	return a.seq < b.seq
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*runHead)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
