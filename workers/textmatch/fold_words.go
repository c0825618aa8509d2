package textmatch

import (
	"encoding/binary"
	"strings"
)

// Folding eight bytes at once: most of what agents and tools write is ASCII words
// between single spaces, and a machine word of it can be checked and lower-cased with a
// few integer operations instead of a branch per byte. A word that holds anything else
// (a byte outside ASCII, a control or white-space byte other than a space, two spaces
// in a row, or a space after one) is left to the byte-by-byte fold.

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
	lows  = 0x7f7f7f7f7f7f7f7f
)

// writePlainWords folds s from byte i eight bytes at a time into b, for as long as
// they fold by case alone; space says whether the byte before i folded to a space. It
// returns the byte it stopped at, and whether the last byte folded is a space (space
// itself when it folded none). Bytes without capitals are written a run at a time.
func writePlainWords(b *strings.Builder, s string, i int, space bool) (int, bool) {
	same := i // from here to i the bytes fold to themselves
	for ; i+8 <= len(s); i += 8 {
		t := s[i : i+8]
		w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		if w&highs != 0 {
			break
		}
		// Each sum below stays within its byte, every byte being ASCII. A byte below
		// 0x20, a control or white-space one, leaves its high bit clear here:
		if ^(w+ones*(0x80-0x20))&highs != 0 {
			break
		}
		spaces := ^((w ^ ones*' ') + lows) & highs // 0x80 in each byte that is a space
		if spaces&(spaces<<8) != 0 || space && spaces&0x80 != 0 {
			break
		}
		if capitals := (w + ones*(0x80-'A')) &^ (w + ones*(0x80-'Z'-1)) & highs; capitals != 0 {
			var lower [8]byte
			binary.LittleEndian.PutUint64(lower[:], w|capitals>>2)
			b.WriteString(s[same:i])
			b.Write(lower[:])
			same = i + 8
		}
		space = spaces>>63 != 0
	}
	b.WriteString(s[same:i])
	return i, space
}
