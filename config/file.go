package config

import (
	"fmt"
	"os"
)

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
