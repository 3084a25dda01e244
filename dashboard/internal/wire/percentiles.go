package wire

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// PercentileLevels are the latency percentiles of the dashboard, in the order of
// Percentiles and of its JSON keys "0", "25", ..., "99.5", "100".
var PercentileLevels = [9]float64{0, 25, 50, 75, 90, 95, 99, 99.5, 100}

// BatchSizeLevels are the batch size percentiles of the dashboard, in the order of
// BatchSizes and of its JSON keys "25", ..., "99.5", "100".
var BatchSizeLevels = [8]float64{25, 50, 75, 90, 95, 99, 99.5, 100}

// Percentiles is a latency distribution in whole milliseconds, one value per
// PercentileLevels entry. It marshals to a JSON object with keys in level order,
// e.g. {"0":1,"25":3,...,"99.5":40,"100":52}.
type Percentiles [9]int64

// MarshalJSON writes the object with keys in level order.
func (p Percentiles) MarshalJSON() ([]byte, error) {
	return marshalLevels(PercentileLevels[:], p[:]), nil
}

// UnmarshalJSON reads the object written by MarshalJSON; unknown keys are an error.
func (p *Percentiles) UnmarshalJSON(b []byte) error {
	return unmarshalLevels(b, PercentileLevels[:], p[:])
}

// BatchSizes is a batch size distribution, one value per BatchSizeLevels entry. It
// marshals to a JSON object with keys "25" ... "100" in level order.
type BatchSizes [8]int64

// MarshalJSON writes the object with keys in level order.
func (s BatchSizes) MarshalJSON() ([]byte, error) {
	return marshalLevels(BatchSizeLevels[:], s[:]), nil
}

// UnmarshalJSON reads the object written by MarshalJSON; unknown keys are an error.
func (s *BatchSizes) UnmarshalJSON(b []byte) error {
	return unmarshalLevels(b, BatchSizeLevels[:], s[:])
}

func levelKey(level float64) string { return strconv.FormatFloat(level, 'f', -1, 64) }

func marshalLevels(levels []float64, values []int64) []byte {
	b := make([]byte, 0, 16*len(levels))
	b = append(b, '{')
	for i, l := range levels {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = strconv.AppendFloat(b, l, 'f', -1, 64)
		b = append(b, '"', ':')
		b = strconv.AppendInt(b, values[i], 10)
	}
	return append(b, '}')
}

func unmarshalLevels(b []byte, levels []float64, values []int64) error {
	var m map[string]int64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	clear(values)
	for k, v := range m {
		i := levelIndex(levels, k)
		if i < 0 {
			return fmt.Errorf("dashboard: unknown percentile key %q", k)
		}
		values[i] = v
	}
	return nil
}

func levelIndex(levels []float64, key string) int {
	for i, l := range levels {
		if levelKey(l) == key {
			return i
		}
	}
	return -1
}
