package hystrixhttp

import (
	"bufio"
	"context"
	"net/http"
	"strings"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/command"
)

// Event is one Server-Sent Event: its id, event type and data (lines joined by "\n").
type Event struct {
	ID, Type, Data string
}

// SSE returns the construct and the resume function of a command.Stream[Event] that reads
// the Server-Sent Events of a streamed response, so the stream's limits (stream.*
// properties: the response headers establish it, each event is an item), its split of
// failures by phase and its resume apply to it:
//
//	construct, resume := hystrixhttp.SSE(client, newReq)
//	st := command.NewStream[hystrixhttp.Event](setter, construct).WithResume(5, resume)
//
// newReq makes the request with the context given (the stream's: it ends with the
// subscription); SSE sets Accept and, on a resume, Last-Event-ID to the id of the last
// event delivered, so a server that honours it carries on after that event. A status
// other than 200 is a *StatusError; a response that ends normally completes the stream,
// one cut (an unexpected EOF, a reset) fails it.
func SSE(client *http.Client, newReq func(ctx context.Context) (*http.Request, error)) (
	construct func(ctx context.Context) rxgo.Observable,
	resume func(ctx context.Context, last Event, err error) rxgo.Observable) {
	construct = func(ctx context.Context) rxgo.Observable { return events(ctx, client, newReq, "") }
	resume = func(ctx context.Context, last Event, _ error) rxgo.Observable {
		return events(ctx, client, newReq, last.ID)
	}
	return construct, resume
}

// events is the stream of the events of one request, after the event lastID when set.
func events(ctx context.Context, client *http.Client, newReq func(context.Context) (*http.Request, error),
	lastID string) rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{func(sub context.Context, next chan<- rxgo.Item) {
		req, err := newReq(sub)
		if err != nil {
			rxgo.Error(err).SendContext(sub, next)
			return
		}
		req.Header.Set("Accept", "text/event-stream")
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := client.Do(req)
		if err != nil {
			rxgo.Error(err).SendContext(sub, next)
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			rxgo.Error(&StatusError{Response: resp}).SendContext(sub, next)
			return
		}
		command.StreamEstablished(ctx)
		if err := scanEvents(bufio.NewScanner(resp.Body), func(e Event) bool {
			return rxgo.Of(e).SendContext(sub, next)
		}); err != nil {
			rxgo.Error(err).SendContext(sub, next)
		}
	}})
}

// scanEvents hands each event of the stream s reads to send, until send returns false or
// the stream ends; it returns the read error (nil at the end of the stream).
func scanEvents(s *bufio.Scanner, send func(Event) bool) error {
	var e Event
	var data []string
	for s.Scan() {
		line := s.Text()
		if line == "" { // dispatch
			if data != nil {
				e.Data = strings.Join(data, "\n")
				if !send(e) {
					return nil
				}
			}
			e, data = Event{ID: e.ID}, nil // the id carries over, as in the EventSource spec
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			e.ID = value
		case "event":
			e.Type = value
		case "data":
			data = append(data, value)
		}
	}
	return s.Err()
}
