package ingest

import "math/bits"

// newlines remembers where lines end in the bytes read ahead of the value being
// decoded, one bit per byte: bounded by that window (a run of newlines costs an eighth
// of its size, not the eight bytes an offset each would), and dropped as the line
// numbers asked for pass it.
type newlines struct {
	base   int64    // offset of the first bit of words[head]
	words  []uint64 // bit i of word k: the byte at base+64(k-head)+i is a newline
	head   int      // words before it were passed and counted in before
	before int      // newlines before base
}

// add records a newline at off, which is past every offset added or asked for before.
func (n *newlines) add(off int64) {
	k := n.head + int((off-n.base)/64)
	for len(n.words) <= k {
		n.words = append(n.words, 0)
	}
	n.words[k] |= 1 << uint((off-n.base)%64)
}

// countBefore returns how many newlines lie before off, and forgets the words wholly
// before it: offsets asked for must not go backwards.
func (n *newlines) countBefore(off int64) int {
	whole := int((off - n.base) / 64)
	for ; whole > 0 && n.head < len(n.words); whole-- {
		n.before += bits.OnesCount64(n.words[n.head])
		n.head++
		n.base += 64
	}
	if n.head == len(n.words) {
		n.words, n.head = n.words[:0], 0
		n.base += 64 * int64(whole)
		return n.before
	}
	if n.head > 1024 && n.head*2 > len(n.words) {
		kept := copy(n.words, n.words[n.head:])
		n.words, n.head = n.words[:kept], 0
	}
	partial := n.words[n.head] & (1<<uint((off-n.base)%64) - 1)
	return n.before + bits.OnesCount64(partial)
}
