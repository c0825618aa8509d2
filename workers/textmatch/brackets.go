package textmatch

// Brackets reads s as a piece of JSON text and reports where the first bracket it
// opens ({ or [) is closed — the index just past it, -1 when it is not — and how many
// brackets are still open at its end: a quote of a call's arguments or a tool's result
// says by it whether it holds a whole value or stops inside one. Brackets inside
// strings do not count.
func Brackets(s string) (closed, open int) {
	closed, inString := -1, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			open++
		case c == '}' || c == ']':
			open--
			if open == 0 && closed < 0 {
				closed = i + 1
			}
		}
	}
	return closed, open
}
