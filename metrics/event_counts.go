package metrics

// EventCounts is the set of events of one execution, with a count for the types that can
// occur more than once (EMIT, FALLBACK_EMIT, COLLAPSED, STREAM_RESUMED). It is a small value type: Add
// returns a new value and nothing allocates. The zero value is empty.
type EventCounts struct {
	set          uint32
	emit         int32
	fallbackEmit int32
	// the counts of COLLAPSED (low half) and STREAM_RESUMED (high half), each as
	// uint32(int32): four fields, as a struct of up to four (and 32 bytes) is a value the
	// compiler keeps in registers, where one of five lives in memory and is copied in
	// overlapping 16-byte moves that the CPU cannot forward from the 4-byte stores that
	// built it, a stall of a dozen cycles per move on every completion.
	rare uint64
}

// collapsed returns the count of COLLAPSED.
func (c EventCounts) collapsed() int32 { return int32(uint32(c.rare)) }

// resumed returns the count of STREAM_RESUMED.
func (c EventCounts) resumed() int32 { return int32(uint32(c.rare >> 32)) }

// withRare returns c with collapsed and resumed as the counts of COLLAPSED and STREAM_RESUMED.
func (c EventCounts) withRare(collapsed, resumed int32) EventCounts {
	c.rare = uint64(uint32(collapsed)) | uint64(uint32(resumed))<<32
	return c
}

// Add returns c with n more events of type e. For a type without a count (every type but
// EMIT, FALLBACK_EMIT, COLLAPSED and STREAM_RESUMED) any n > 0 marks it present; n <= 0 changes nothing.
func (c EventCounts) Add(e EventType, n int) EventCounts {
	if n <= 0 || int(e) >= NumEventTypes {
		return c
	}
	c.set |= 1 << e
	switch e {
	case Emit:
		c.emit += int32(n)
	case FallbackEmit:
		c.fallbackEmit += int32(n)
	case Collapsed:
		c = c.withRare(c.collapsed()+int32(n), c.resumed())
	case StreamResumed:
		c = c.withRare(c.collapsed(), c.resumed()+int32(n))
	}
	return c
}

// NewEventCounts returns, in one step, the counts Add would build type by type: the types
// whose bit is set in set (bit e for EventType e, that is 1<<e), with emit, fallbackEmit
// and collapsed as the counts of EMIT, FALLBACK_EMIT and COLLAPSED (STREAM_RESUMED counts
// 1: Add the rest). As with Add, a counted type whose count is below 1 is left out, and so
// are bits beyond the last type.
func NewEventCounts(set uint32, emit, fallbackEmit, collapsed int) EventCounts {
	c := EventCounts{set: set & (1<<NumEventTypes - 1)}
	if c.set&(1<<StreamResumed) != 0 {
		c.rare = 1 << 32
	}
	if c.set&(1<<Emit|1<<FallbackEmit|1<<Collapsed) != 0 { // rare: streams and collapsers
		c.emit = c.counted(Emit, emit)
		c.fallbackEmit = c.counted(FallbackEmit, fallbackEmit)
		c.rare |= uint64(uint32(c.counted(Collapsed, collapsed)))
	}
	return c
}

// counted returns the count of the counted type e, n if e is in the set, and takes e out
// of the set when n is below 1.
func (c *EventCounts) counted(e EventType, n int) int32 {
	if c.set&(1<<e) == 0 {
		return 0
	}
	if n <= 0 {
		c.set &^= 1 << e
		return 0
	}
	return int32(n)
}

// Count returns how many events of type e the set holds: the count for EMIT,
// FALLBACK_EMIT, COLLAPSED and STREAM_RESUMED, else 1 if present and 0 if not.
func (c EventCounts) Count(e EventType) int {
	switch e {
	case Emit:
		return int(c.emit)
	case FallbackEmit:
		return int(c.fallbackEmit)
	case Collapsed:
		return int(c.collapsed())
	case StreamResumed:
		return int(c.resumed())
	}
	if c.Contains(e) {
		return 1
	}
	return 0
}

// Contains reports whether e is in the set.
func (c EventCounts) Contains(e EventType) bool {
	return int(e) < NumEventTypes && c.set&(1<<e) != 0
}

// Events returns the types in the set in Hystrix order, each once (for logs; it allocates).
func (c EventCounts) Events() []EventType {
	var out []EventType
	for e := EventType(0); int(e) < NumEventTypes; e++ {
		if c.Contains(e) {
			out = append(out, e)
		}
	}
	return out
}

// String formats the set like Hystrix's request log: "[EMITx3, SUCCESS]".
func (c EventCounts) String() string {
	buf := make([]byte, 0, 64)
	buf = append(buf, '[')
	for i, e := range c.Events() {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = append(buf, e.String()...)
		if n := c.Count(e); e.isCounted() && n > 1 {
			buf = append(buf, 'x')
			buf = appendInt(buf, n)
		}
	}
	return string(append(buf, ']'))
}

func appendInt(buf []byte, n int) []byte {
	if n >= 10 {
		buf = appendInt(buf, n/10)
	}
	return append(buf, byte('0'+n%10))
}
