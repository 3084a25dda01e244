package config

import (
	"errors"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// settle is how long the watcher waits after the last change before it re-reads, so
// that a file written in several steps is read once, whole.
const settle = 100 * time.Millisecond

// watcher calls reload when a file may have changed: on any event in the file's
// directory (edits, renames over it, the ..data link swap of Kubernetes) or in the
// directory of the file's symlink target, which it re-resolves before each reload.
type watcher struct {
	path   string
	reload func() error
	w      *fsnotify.Watcher
	target string // directory of the symlink target watched besides the file's own; "" if none

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once

	mu        sync.Mutex
	reloading bool // reload runs on the watcher's goroutine: close must not wait for it
}

func startWatcher(path string, reload func() error) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := fw.Add(filepath.Dir(path)); err != nil {
		fw.Close()
		return nil, err
	}
	w := &watcher{path: path, reload: reload, w: fw, stop: make(chan struct{}), done: make(chan struct{})}
	w.follow()
	go w.loop()
	return w, nil
}

func (w *watcher) loop() {
	defer close(w.done)
	timer := time.NewTimer(settle)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-w.stop:
			return
		case _, ok := <-w.w.Events:
			if !ok {
				return
			}
			timer.Reset(settle)
		case err, ok := <-w.w.Errors:
			if !ok {
				return
			}
			slog.Warn("config: watching a properties file", "file", w.path, "error", err)
		case <-timer.C:
			select {
			case <-w.stop: // closed meanwhile: the select may pick the timer first
				return
			default:
			}
			w.follow() // first, so that no change after the read goes unseen
			var refused *RefusedError
			if err := w.reloadNow(); err != nil && !errors.As(err, &refused) {
				// Refused entries are logged by the Stores; this is a file that
				// could not be read or parsed, or looks half-written.
				slog.Warn("config: properties file not reloaded, previous values stay",
					"file", w.path, "error", err)
			}
		}
	}
}

// follow watches the directory of the file's symlink target when it is not the file's
// own, and stops watching a previous target's.
func (w *watcher) follow() {
	target := ""
	if resolved, err := filepath.EvalSymlinks(w.path); err == nil {
		if dir := filepath.Dir(resolved); dir != filepath.Dir(w.path) {
			target = dir
		}
	}
	if target == w.target {
		return
	}
	if w.target != "" {
		_ = w.w.Remove(w.target) // fails when the directory is gone, and then it is unwatched
	}
	w.target = ""
	if target != "" && w.w.Add(target) == nil {
		w.target = target
	}
}

// reloadNow calls reload, marked as running.
func (w *watcher) reloadNow() error {
	w.mu.Lock()
	w.reloading = true
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.reloading = false
		w.mu.Unlock()
	}()
	return w.reload()
}

// close stops the watcher and waits for its goroutine, unless that goroutine is
// reloading (close called by a subscriber of the source, for one): it then ends when
// the reload returns, reloading nothing more.
func (w *watcher) close() error {
	var err error
	w.closeOnce.Do(func() {
		close(w.stop)
		err = w.w.Close()
		w.mu.Lock()
		reloading := w.reloading
		w.mu.Unlock()
		if !reloading {
			<-w.done
		}
	})
	return err
}
