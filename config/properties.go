package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// ParseError is a syntax error in a .properties file.
type ParseError struct {
	File string // file name as given
	Line int    // 1-based line of the bad entry
	Msg  string
}

// Error returns "config: <file>:<line>: <msg>".
func (e *ParseError) Error() string {
	return fmt.Sprintf("config: %s:%d: %s", e.File, e.Line, e.Msg)
}

// maxLineLength is the longest line parseProperties reads, in bytes (64 KiB).
const maxLineLength = 64 << 10

// blanks are the white space of a .properties file, as java.util.Properties has it.
const blanks = " \t\f"

// parseProperties reads .properties text as java.util.Properties.load does, in UTF-8:
//
//   - Lines end in "\n", "\r\n" or "\r". A line whose first non-blank character is '#'
//     or '!' is a comment; blank lines are skipped. Blanks are space, tab and form feed.
//   - A line ending in an odd number of backslashes continues on the next line, whose
//     leading blanks are dropped (a blank next line ends the entry).
//   - Each entry is key=value or key:value: the key ends at the first '=' or ':' that is
//     not escaped, and key and value are trimmed of blanks that are not escaped.
//   - Escapes: \t \n \r \f, \uXXXX (four hex digits, UTF-16: a surrogate pair is one
//     character), and a backslash before any other character stands for that character:
//     \= \: \# \! \\ and "\ " (a space kept in a key or at either end of a value).
//
// So a key that holds a colon or a space, like hystrixhttp's default key "GET host:port",
// is written with escapes:
//
//	hystrix.command.GET\ api.example.com\:8080.execution.isolation.thread.timeoutInMilliseconds=300
//
// Unlike java.util.Properties, a blank does not end a key (keys may hold spaces; escape
// them for files that Java reads too), and a line with neither '=' nor ':' is an error.
// A later duplicate key wins. A UTF-8 byte order mark at the start is skipped.
// A line without '=' or ':', with an empty key, a malformed \u escape or longer than
// maxLineLength is a *ParseError naming file and line.
//
// The time taken is linear in the length of the input.
func parseProperties(r io.Reader, file string) (map[string]string, error) {
	values := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, maxLineLength+len("\r\n"))
	sc.Split(scanLines)
	lineNo, start := 0, 0
	var entry []byte
	continued := false
	for sc.Scan() {
		lineNo++
		line := sc.Bytes()
		if len(line) > maxLineLength {
			return nil, tooLong(file, lineNo)
		}
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		line = bytes.TrimLeft(line, blanks)
		if !continued {
			if len(line) == 0 || line[0] == '#' || line[0] == '!' {
				continue
			}
			start = lineNo
		}
		continued = len(line) > 0 && oddBackslashes(line)
		if continued {
			entry = append(entry, line[:len(line)-1]...)
			continue
		}
		entry = append(entry, line...)
		if err := addEntry(values, entry, file, start); err != nil {
			return nil, err
		}
		entry = entry[:0]
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, tooLong(file, lineNo+1)
	} else if err != nil {
		return nil, fmt.Errorf("config: reading %s: %w", file, err)
	}
	if continued {
		if err := addEntry(values, entry, file, start); err != nil {
			return nil, err
		}
	}
	return values, nil
}

func tooLong(file string, line int) error {
	return &ParseError{File: file, Line: line, Msg: fmt.Sprintf("line longer than %d bytes", maxLineLength)}
}

// scanLines is bufio.ScanLines for the line ends of a .properties file: "\n", "\r\n"
// and "\r".
func scanLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	i := bytes.IndexAny(data, "\r\n")
	switch {
	case i < 0 && atEOF && len(data) > 0:
		return len(data), data, nil
	case i < 0:
		return 0, nil, nil
	case data[i] == '\n':
		return i + 1, data[:i], nil
	case i+1 < len(data):
		if data[i+1] == '\n' {
			return i + 2, data[:i], nil
		}
		return i + 1, data[:i], nil
	case atEOF:
		return i + 1, data[:i], nil
	}
	return 0, nil, nil // a '\r' at the end of data: "\r\n" or "\r"?
}

// oddBackslashes reports whether s ends in an odd number of backslashes.
func oddBackslashes(s []byte) bool {
	n := 0
	for n < len(s) && s[len(s)-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

// addEntry splits entry at its first unescaped '=' or ':' and adds the unescaped key and
// value to values.
func addEntry(values map[string]string, entry []byte, file string, line int) error {
	sep := -1
	for i := 0; i < len(entry); i++ {
		if entry[i] == '\\' {
			i++
		} else if entry[i] == '=' || entry[i] == ':' {
			sep = i
			break
		}
	}
	if sep < 0 {
		return &ParseError{File: file, Line: line, Msg: "missing '=' in " + excerpt(entry)}
	}
	key, err := unescape(trimBlanks(entry[:sep]))
	if err == nil && key == "" {
		err = errors.New("empty key")
	}
	var value string
	if err == nil {
		value, err = unescape(trimBlanks(entry[sep+1:]))
	}
	if err != nil {
		return &ParseError{File: file, Line: line, Msg: err.Error() + " in " + excerpt(entry)}
	}
	values[key] = value
	return nil
}

// excerpt quotes an entry for an error message, at most 80 bytes of it.
func excerpt(entry []byte) string {
	if len(entry) > 80 {
		return strconv.Quote(string(entry[:77])) + "..."
	}
	return strconv.Quote(string(entry))
}

// trimBlanks trims s of the blanks at either end that are not escaped.
func trimBlanks(s []byte) []byte {
	s = bytes.TrimLeft(s, blanks)
	t := bytes.TrimRight(s, blanks)
	if len(t) < len(s) && oddBackslashes(t) {
		return s[:len(t)+1] // the first blank after t is escaped
	}
	return t
}

// unescape resolves the escapes of s (see parseProperties).
func unescape(s []byte) (string, error) {
	i := bytes.IndexByte(s, '\\')
	if i < 0 {
		return string(s), nil
	}
	out := make([]byte, 0, len(s))
	for ; i >= 0; i = bytes.IndexByte(s, '\\') {
		out = append(out, s[:i]...)
		c := s[i+1] // never past the end: an entry ends in no unpaired backslash
		s = s[i+2:]
		switch c {
		case 't':
			out = append(out, '\t')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 'f':
			out = append(out, '\f')
		case 'u':
			r, n, err := unicodeEscape(s)
			if err != nil {
				return "", err
			}
			out = utf8.AppendRune(out, r)
			s = s[n:]
		default:
			out = append(out, c)
		}
	}
	return string(append(out, s...)), nil
}

// unicodeEscape reads the XXXX of a \uXXXX escape at the start of s and, for a high
// surrogate, the \uXXXX of its low surrogate after it. n is the bytes read.
func unicodeEscape(s []byte) (r rune, n int, err error) {
	hi, ok := hex4(s)
	if !ok {
		return 0, 0, fmt.Errorf(`malformed \uXXXX escape \u%s`, s[:min(len(s), 4)])
	}
	if !utf16.IsSurrogate(hi) {
		return hi, 4, nil
	}
	if len(s) >= 10 && s[4] == '\\' && s[5] == 'u' {
		if lo, ok := hex4(s[6:]); ok {
			if r := utf16.DecodeRune(hi, lo); r != utf8.RuneError {
				return r, 10, nil
			}
		}
	}
	return 0, 0, fmt.Errorf(`\u%04X is half of a UTF-16 surrogate pair`, hi)
}

// hex4 reads four hex digits at the start of s.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var v rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
