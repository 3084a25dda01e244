// Package loopback holds what the benchmark harnesses share to call their loopback
// backends.
package loopback

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// Get calls url with hc and returns an error unless it answered 200; the body is read
// to its end, so that the connection is kept.
func Get(ctx context.Context, hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}
