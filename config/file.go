package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
)

// FileSource is a Source backed by a .properties file (read as java.util.Properties reads
// one, see the package doc) that follows the file: it watches the file's directory (and,
// when the path is a symbolic link, its target's, re-resolved before every re-read: a
// Kubernetes ConfigMap volume swaps a ..data link), and re-reads the file about 100 ms
// after the last change. An
// edit thus applies within a fraction of a second; a file that cannot be read or parsed
// changes nothing and is logged (slog.Warn), and entries the Stores refuse are reported
// by them. Reload re-reads at once. Close stops watching.
//
// A file is never applied while it looks half-written (ErrPartialFile, logged like an
// unparsable file): when its last line has no line break (a writer stopped mid-line:
// end every file with one), or when it is empty and the source has values (a writer
// truncates the file before it writes: an emptied file keeps the previous values; to
// remove every property, leave a comment in the file). A file written elsewhere and
// renamed over the path, as editors and ConfigMap volumes do, is always whole; a file
// written in place in several steps is applied as it stands whenever it ends in a line
// break 100 ms after the last step.
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

// ErrPartialFile matches (errors.Is) the error of FileSource.Reload (and
// NewFileSource) for a file that looks half-written: its last line has no line break,
// or it is empty while the source has values. The previous values stay.
var ErrPartialFile = errors.New("config: properties file looks half-written")

// Reload re-reads the file and notifies subscribers. On a read or parse error, or a file
// that looks half-written (ErrPartialFile), the previous values stay and the error is
// returned. Otherwise the error is the *RefusedError of the entries the Stores using the
// source refuse now (nil if none), whether the file changed or not: the other entries
// apply.
func (f *FileSource) Reload() error {
	data, err := os.ReadFile(f.path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	switch {
	case len(data) == 0 && f.size() > 0:
		return fmt.Errorf("%w: %s is empty, the previous values stay (to remove every property, leave a comment in it)",
			ErrPartialFile, f.path)
	case len(data) > 0 && data[len(data)-1] != '\n' && data[len(data)-1] != '\r':
		return fmt.Errorf("%w: the last line of %s has no line break, the previous values stay until it has one",
			ErrPartialFile, f.path)
	}
	values, err := parseProperties(bytes.NewReader(data), f.path)
	if err != nil {
		return err
	}
	return f.replace(values)
}

// Close stops watching the file; the values stay. It waits for the watcher to end,
// unless the watcher is re-reading the file (Close called from a subscriber, for one):
// it then ends when that re-read returns, and re-reads nothing more. It is idempotent.
func (f *FileSource) Close() error { return f.watch.close() }
