//go:build e2e

package hystrixhttp

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// payload is the body the server sends for call id: 4 KB that only id makes.
func payload(id uint64) []byte {
	out := make([]byte, 0, 4096)
	var seed [8]byte
	binary.LittleEndian.PutUint64(seed[:], id)
	block := sha256.Sum256(seed[:])
	for len(out) < 4096 {
		out = append(out, block[:]...)
		block = sha256.Sum256(block[:])
	}
	return out
}

// 100,000 hedged GETs from 32 goroutines against a loopback HTTP/2 server whose first answer to a
// call comes 0.3 to 1.1 ms after it arrived (later on a busy machine), around the hedge's delay (1 ms), and whose
// answer to the hedge comes only when it is cancelled: every call races its first
// attempt's answer against the hedge's start. Every caller gets its own call's 4 KB whole
// (sha256 of each body), never a closed body, a mixed one or an error. Before, 3 and 15
// of 10,000 calls got a closed body (http: read on closed response body).
func TestTransportHedgedBodiesRacedAtTheHedgesStart(t *testing.T) {
	const calls, workers = 100_000, 32
	var seen sync.Map // call id -> attempts that arrived
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseUint(r.URL.Query().Get("id"), 10, 64)
		n, _ := seen.LoadOrStore(id, new(atomic.Int32))
		if n.(*atomic.Int32).Add(1) > 1 { // the hedge: answers once abandoned
			<-r.Context().Done()
		} else {
			time.Sleep(300*time.Microsecond + rand.N(800*time.Microsecond))
		}
		w.Write(payload(id))
	}))
	srv.EnableHTTP2 = true // a cancelled hedge resets its stream, not the connection
	srv.StartTLS()
	defer srv.Close()
	base := srv.Client().Transport.(*http.Transport)
	defer base.CloseIdleConnections()
	rt := command.NewRuntime(command.WithConfig(config.NewStore()))
	defer rt.Close()
	tr := &Transport{Base: base, Setter: command.Setter{Runtime: rt, CommandKey: "hedged", Properties: config.Overrides{
		"hedge.maxHedges": "1", "hedge.delayInMilliseconds": "1ms", "budget.enabled": "false",
		"circuitBreaker.enabled": "false", "execution.isolation.strategy": "SEMAPHORE",
		"execution.isolation.semaphore.maxConcurrentRequests": "1000",
		"execution.isolation.thread.timeoutInMilliseconds":    "30000", // what is measured is the body, not the time
	}}}
	c := &http.Client{Transport: tr}
	var next atomic.Uint64
	var failed, closed, mixed atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for id := next.Add(1); id <= calls; id = next.Add(1) {
				req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet,
					srv.URL+"/?id="+strconv.FormatUint(id, 10), nil)
				resp, err := c.Do(req)
				if err != nil {
					if failed.Add(1) <= 3 {
						t.Logf("call %d: %v", id, err)
					}
					continue
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch {
				case err != nil:
					closed.Add(1)
				case sha256.Sum256(body) != sha256.Sum256(payload(id)):
					mixed.Add(1)
				}
				seen.Delete(id)
			}
		})
	}
	wg.Wait()
	time.Sleep(time.Second) // past the end of the rolling bucket in progress...
	rt.Metrics().Flush()    // ...which this rolls, whatever the roll timer did
	m := rt.Metrics().Command("hedged")
	hedges := m.CumulativeCount(metrics.Hedge)
	t.Logf("%d calls, %d hedged: %d errors, %d closed bodies, %d mixed bodies", calls, hedges,
		failed.Load(), closed.Load(), mixed.Load())
	assert.Zero(t, failed.Load())
	assert.Zero(t, closed.Load(), "no caller gets a closed body")
	assert.Zero(t, mixed.Load(), "every caller gets its call's body, whole")
	require.Greater(t, hedges, int64(calls/10), "the hedge raced the first answer")
}
