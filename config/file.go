package config

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"
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

// ParseProperties reads Java-style .properties text: one key=value (or key:value) per
// line, key and value trimmed of white space; lines whose first non-blank character is
// '#' or '!' are comments; blank lines are skipped; a line ending in an odd number of
// backslashes continues on the next line (leading white space of the continuation is
// dropped). A later duplicate key wins. Other backslash escapes are not interpreted.
// A line without '=' or ':' or with an empty key is a *ParseError naming file and line.
func ParseProperties(r io.Reader, file string) (map[string]string, error) {
	values := map[string]string{}
	sc := bufio.NewScanner(r)
	lineNo, start := 0, 0
	var entry strings.Builder
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if entry.Len() == 0 {
			line = strings.TrimLeft(line, " \t\f")
			if line == "" || line[0] == '#' || line[0] == '!' {
				continue
			}
			start = lineNo
		} else {
			line = strings.TrimLeft(line, " \t\f")
		}
		if continues(line) {
			entry.WriteString(line[:len(line)-1])
			continue
		}
		entry.WriteString(line)
		if err := addEntry(values, entry.String(), file, start); err != nil {
			return nil, err
		}
		entry.Reset()
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("config: reading %s: %w", file, err)
	}
	if entry.Len() > 0 {
		if err := addEntry(values, entry.String(), file, start); err != nil {
			return nil, err
		}
	}
	return values, nil
}

// continues reports whether line ends in an odd number of backslashes.
func continues(line string) bool {
	n := len(line) - len(strings.TrimRight(line, `\`))
	return n%2 == 1
}

func addEntry(values map[string]string, entry, file string, line int) error {
	i := strings.IndexAny(entry, "=:")
	if i < 0 {
		return &ParseError{File: file, Line: line, Msg: fmt.Sprintf("missing '=' in %q", entry)}
	}
	key := strings.TrimSpace(entry[:i])
	if key == "" {
		return &ParseError{File: file, Line: line, Msg: fmt.Sprintf("empty key in %q", entry)}
	}
	values[key] = strings.TrimSpace(entry[i+1:])
	return nil
}

// FileSource is a Source backed by a .properties file (see ParseProperties). Reload
// re-reads it; call it from a file watcher, a SIGHUP handler or a ticker to make edits
// take effect without a restart.
type FileSource struct {
	mapSource
	path string
}

// NewFileSource reads path.
func NewFileSource(path string) (*FileSource, error) {
	f := &FileSource{path: path}
	if err := f.Reload(); err != nil {
		return nil, err
	}
	return f, nil
}

// Reload re-reads the file and notifies subscribers if any value changed. On a read or
// parse error the previous values stay and the error is returned.
func (f *FileSource) Reload() error {
	fh, err := os.Open(f.path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	defer fh.Close()
	values, err := ParseProperties(fh, f.path)
	if err != nil {
		return err
	}
	f.update(func(cur map[string]string) bool {
		if maps.Equal(cur, values) {
			return false
		}
		clear(cur)
		maps.Copy(cur, values)
		return true
	})
	return nil
}
