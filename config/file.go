package config

import (
	"bufio"
	"errors"
	"fmt"
	"io"
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

// MaxLineLength is the longest line ParseProperties reads, in bytes.
const MaxLineLength = 64 << 10

// ParseProperties reads Java-style .properties text: one key=value (or key:value) per
// line, key and value trimmed of white space; lines whose first non-blank character is
// '#' or '!' are comments; blank lines are skipped; a line ending in an odd number of
// backslashes continues on the next line (leading white space of the continuation is
// dropped). A later duplicate key wins. Other backslash escapes are not interpreted. A
// UTF-8 byte order mark at the start is skipped.
// A line without '=' or ':', with an empty key or longer than MaxLineLength is a
// *ParseError naming file and line.
func ParseProperties(r io.Reader, file string) (map[string]string, error) {
	values := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, MaxLineLength+len("\n"))
	lineNo, start := 0, 0
	var entry strings.Builder
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if lineNo == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
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
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, &ParseError{File: file, Line: lineNo + 1,
			Msg: fmt.Sprintf("line longer than %d bytes", MaxLineLength)}
	} else if err != nil {
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

// FileSource is a Source backed by a .properties file (see ParseProperties) that
// follows the file: it watches the file's directory (and, when the path is a symbolic
// link, its target's, re-resolved before every re-read: a Kubernetes ConfigMap volume
// swaps a ..data link), and re-reads the file about 100 ms after the last change. An
// edit thus applies within a fraction of a second; a file that cannot be read or parsed
// changes nothing and is logged (slog.Warn), and entries the Stores refuse are reported
// by them. Reload re-reads at once. Close stops watching.
type FileSource struct {
	mapSource
	path  string
	watch *watcher
}

// NewFileSource reads path and starts watching it; call Close when done.
func NewFileSource(path string) (*FileSource, error) {
	f := &FileSource{mapSource: mapSource{label: path}, path: path}
	w, err := startWatcher(path, f.Reload) // first, so that no change after the read goes unseen
	if err != nil {
		return nil, fmt.Errorf("config: watching %s: %w", path, err)
	}
	if err := f.Reload(); err != nil {
		w.close()
		return nil, err
	}
	f.watch = w
	return f, nil
}

// Reload re-reads the file and notifies subscribers if any value changed. On a read or
// parse error the previous values stay and the error is returned. Otherwise the error
// is the *RefusedError of the entries the Stores using the source refuse (nil if none):
// the other entries apply.
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
	return f.replace(values)
}

// Close stops watching the file; the values stay. It waits for the watcher to end and
// is idempotent.
func (f *FileSource) Close() error { return f.watch.close() }
