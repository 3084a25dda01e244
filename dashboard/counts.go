package dashboard

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// countFields maps each command event type the Hystrix stream shows
// (metrics.EventType.StreamName) to its CommandCounts field, by the field's JSON name
// rollingCount<StreamName>. It is built from the event table when the package loads and
// panics there if an event the stream shows has no field: a new event type cannot be left
// off the stream in silence.
var countFields = func() []countField {
	byJSON := map[string]int{}
	t := reflect.TypeFor[wire.CommandCounts]()
	for i := range t.NumField() {
		byJSON[strings.Split(t.Field(i).Tag.Get("json"), ",")[0]] = i
	}
	var fs []countField
	for _, e := range metrics.AllEventTypes() {
		name := e.StreamName()
		if name == "" {
			continue
		}
		i, ok := byJSON["rollingCount"+name]
		if !ok {
			panic(fmt.Sprintf("dashboard: wire.CommandCounts has no field rollingCount%s for %s", name, e))
		}
		fs = append(fs, countField{e, i})
	}
	return fs
}()

// countField is one event type and the index of its CommandCounts field.
type countField struct {
	e     metrics.EventType
	index int
}

// commandCounts reads the rolling count of every event the stream shows.
func commandCounts(m *metrics.CommandMetrics) wire.CommandCounts {
	var c wire.CommandCounts
	v := reflect.ValueOf(&c).Elem()
	for _, f := range countFields {
		v.Field(f.index).SetInt(m.RollingCount(f.e))
	}
	return c
}
