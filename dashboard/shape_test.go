package dashboard

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
)

// The shapes below are the JSON objects of the three streams as Hystrix writes them,
// taken from Hystrix's serializers (SerialHystrixDashboardData,
// SerialHystrixUtilization, SerialHystrixConfiguration), not from our output. Fields we
// add are marked "ours". Every frame a test reads, golden files included, is held to them.

// Field kinds as a JSON decoder sees them.
const (
	kString       = "string"
	kInt          = "integer"
	kBool         = "bool"
	kNull         = "null"
	kStringOrNull = "string or null" // Jackson's writeStringField of a null String
	kPct          = "percentiles"
	kBatch        = "batchSizes"
)

// object is the shape of a JSON object with exactly these fields; each value is a kind,
// an object or a byName.
type object map[string]any

// optional is the shape of a field that may be absent.
type optional struct{ value any }

// byName is the shape of a JSON object keyed by names (command keys, property names),
// every value of one shape.
type byName struct{ value any }

var commandShape = object{
	"type": kString, "name": kString, "group": kString, "currentTime": kInt, "threadPool": kString,
	"isCircuitBreakerOpen": kBool, "errorPercentage": kInt, "errorCount": kInt, "requestCount": kInt,
	"rollingCountBadRequests": kInt, "rollingCountCollapsedRequests": kInt, "rollingCountEmit": kInt,
	"rollingCountExceptionsThrown": kInt, "rollingCountFailure": kInt, "rollingCountFallbackEmit": kInt,
	"rollingCountFallbackFailure": kInt, "rollingCountFallbackMissing": kInt,
	"rollingCountFallbackRejection": kInt, "rollingCountFallbackSuccess": kInt,
	"rollingCountResponsesFromCache": kInt, "rollingCountSemaphoreRejected": kInt,
	"rollingCountShortCircuited": kInt, "rollingCountSuccess": kInt,
	"rollingCountThreadPoolRejected": kInt, "rollingCountTimeout": kInt,
	"rollingCountRateLimited": kInt, "rollingCountFaultInjected": kInt, // beyond Hystrix
	"rollingCountAdaptiveRejected": kInt,                                                                                // ours
	"adaptiveLimit":                optional{kInt}, "adaptiveInflight": optional{kInt}, "adaptiveQueue": optional{kInt}, // ours, ADAPTIVE keys only
	"rollingCountRetry": kInt, "rollingCountBudgetExhausted": kInt, "rollingCountHedge": kInt,
	"rollingCountThrottled":           kInt,
	"currentConcurrentExecutionCount": kInt, "rollingMaxConcurrentExecutionCount": kInt,
	"latencyExecute_mean": kInt, "latencyExecute": kPct, "latencyTotal_mean": kInt, "latencyTotal": kPct,
	"propertyValue_circuitBreakerRequestVolumeThreshold":             kInt,
	"propertyValue_circuitBreakerSleepWindowInMilliseconds":          kInt,
	"propertyValue_circuitBreakerErrorThresholdPercentage":           kInt,
	"propertyValue_circuitBreakerForceOpen":                          kBool,
	"propertyValue_circuitBreakerForceClosed":                        kBool,
	"propertyValue_circuitBreakerEnabled":                            kBool,
	"propertyValue_executionIsolationStrategy":                       kString,
	"propertyValue_executionIsolationThreadTimeoutInMilliseconds":    kInt,
	"propertyValue_executionTimeoutInMilliseconds":                   kInt,
	"propertyValue_executionIsolationThreadInterruptOnTimeout":       kBool,
	"propertyValue_executionIsolationThreadPoolKeyOverride":          kStringOrNull,
	"propertyValue_executionIsolationSemaphoreMaxConcurrentRequests": kInt,
	"propertyValue_fallbackIsolationSemaphoreMaxConcurrentRequests":  kInt,
	"propertyValue_metricsRollingStatisticalWindowInMilliseconds":    kInt,
	"propertyValue_requestCacheEnabled":                              kBool,
	"propertyValue_requestLogEnabled":                                kBool,
	"propertyValue_streamCutsCountForHealth":                         kBool, // ours
	"reportingHosts":                                                 kInt,
}

var threadPoolShape = object{
	"type": kString, "name": kString, "currentTime": kInt, "currentActiveCount": kInt,
	"currentCompletedTaskCount": kInt, "currentCorePoolSize": kInt, "currentLargestPoolSize": kInt,
	"currentMaximumPoolSize": kInt, "currentPoolSize": kInt, "currentQueueSize": kInt,
	"currentTaskCount": kInt, "rollingCountThreadsExecuted": kInt, "rollingMaxActiveThreads": kInt,
	"rollingCountCommandRejections": kInt, "propertyValue_queueSizeRejectionThreshold": kInt,
	"propertyValue_metricsRollingStatisticalWindowInMilliseconds": kInt, "reportingHosts": kInt,
}

var collapserShape = object{
	"type": kString, "name": kString, "currentTime": kInt, "rollingCountRequestsBatched": kInt,
	"rollingCountBatches": kInt, "rollingCountResponsesFromCache": kInt, "batchSize_mean": kInt,
	"batchSize": kBatch, "propertyValue_requestCacheEnabled": kBool,
	"propertyValue_maxRequestsInBatch": kInt, "propertyValue_timerDelayInMilliseconds": kInt,
	"reportingHosts": kInt,
}

var utilizationShape = object{
	"type":     kString,
	"commands": byName{object{"activeCount": kInt}},
	"threadpools": byName{object{
		"activeCount": kInt, "queueSize": kInt, "corePoolSize": kInt, "poolSize": kInt,
		"utilization": kInt, // ours
	}},
}

var configShape = object{
	"type": kString,
	"commands": byName{object{
		"threadPoolKey": kString, "groupKey": kString,
		"execution": object{
			"isolationStrategy": kString, "threadPoolKeyOverride": kStringOrNull,
			"requestCacheEnabled": kBool, "requestLogEnabled": kBool, "timeoutEnabled": kBool,
			"fallbackEnabled": kBool, "timeoutInMilliseconds": kInt, "semaphoreSize": kInt,
			"fallbackSemaphoreSize": kInt, "threadInterruptOnTimeout": kBool,
		},
		"metrics": object{
			"healthBucketSizeInMs": kInt, "percentileBucketSizeInMilliseconds": kInt,
			"percentileBucketCount": kInt, "percentileEnabled": kBool,
			"counterBucketSizeInMilliseconds": kInt, "counterBucketCount": kInt,
		},
		"circuitBreaker": object{
			"enabled": kBool, "isForcedOpen": kBool, "isForcedClosed": kBool,
			"requestVolumeThreshold": kInt, "errorPercentageThreshold": kInt, "sleepInMilliseconds": kInt,
		},
		"properties": byName{kString}, // ours
	}},
	"threadpools": byName{object{
		"coreSize": kInt, "maximumSize": kInt, "maxQueueSize": kInt, "queueRejectionThreshold": kInt,
		"keepAliveTimeInMinutes": kInt, "allowMaximumSizeToDivergeFromCoreSize": kBool,
		"counterBucketSizeInMilliseconds": kInt, "counterBucketCount": kInt,
		"properties": byName{kString}, // ours
	}},
	"collapsers": byName{object{
		"maxRequestsInBatch": kInt, "timerDelayInMilliseconds": kInt, "requestCacheEnabled": kBool,
		"metrics": object{
			"percentileBucketSizeInMilliseconds": kInt, "percentileBucketCount": kInt,
			"percentileEnabled": kBool, "counterBucketSizeInMilliseconds": kInt, "counterBucketCount": kInt,
		},
		"properties": byName{kString}, // ours
	}},
}

// shapes are the frame shapes by their "type".
var shapes = map[string]object{
	wire.TypeCommand: commandShape, wire.TypeThreadPool: threadPoolShape, wire.TypeCollapser: collapserShape,
	wire.TypeUtilization: utilizationShape, wire.TypeConfig: configShape,
}

// kindOf names the JSON kind of a decoded value.
func kindOf(v any) string {
	switch v := v.(type) {
	case nil:
		return kNull
	case string:
		return kString
	case bool:
		return kBool
	case float64:
		if v == math.Trunc(v) {
			return kInt
		}
		return "fraction"
	case map[string]any:
		for _, n := range v {
			if kindOf(n) != kInt {
				return "object"
			}
		}
		switch keys := slices.Sorted(maps.Keys(v)); {
		case slices.Equal(keys, []string{"0", "100", "25", "50", "75", "90", "95", "99", "99.5"}):
			return kPct
		case slices.Equal(keys, []string{"100", "25", "50", "75", "90", "95", "99", "99.5"}):
			return kBatch
		}
		return "object"
	}
	return "unexpected"
}

// reporter is what checkShape reports to: a *testing.T, or a recorder.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// checkShape checks that got, a decoded JSON value at path, has the shape want.
func checkShape(t reporter, path string, got, want any) {
	t.Helper()
	switch want := want.(type) {
	case string:
		kind := kindOf(got)
		if want == kStringOrNull && (kind == kString || kind == kNull) {
			return
		}
		assert.Equal(t, want, kind, "%s = %v", path, got)
	case object:
		obj, ok := got.(map[string]any)
		if !assert.True(t, ok, "%s is an object, got %v", path, got) {
			return
		}
		var fields []string
		for name, field := range want {
			if _, opt := field.(optional); !opt {
				fields = append(fields, name)
			} else if _, ok := obj[name]; ok {
				fields = append(fields, name)
			}
		}
		assert.ElementsMatch(t, fields, slices.Collect(maps.Keys(obj)), "fields of %s", path)
		for name, field := range want {
			if v, ok := obj[name]; ok {
				checkShape(t, path+"."+name, v, field)
			}
		}
	case optional:
		checkShape(t, path, got, want.value)
	case byName:
		obj, ok := got.(map[string]any)
		if !assert.True(t, ok, "%s is an object, got %v", path, got) {
			return
		}
		for name, v := range obj {
			checkShape(t, path+"["+name+"]", v, want.value)
		}
	default:
		t.Errorf("bad shape %T at %s", want, path)
	}
}

// assertShape decodes a frame, checks it has the shape of its "type" and returns it.
func assertShape(t *testing.T, frame string) map[string]any {
	t.Helper()
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(frame), &obj), frame)
	typ, _ := obj["type"].(string)
	shape, ok := shapes[typ]
	require.True(t, ok, "unknown type %q", typ)
	checkShape(t, typ, obj, shape)
	return obj
}

// assertFrames checks the shape of every data frame of a stream's text.
func assertFrames(t *testing.T, stream string) {
	t.Helper()
	for _, line := range strings.Split(stream, "\n") {
		if frame, ok := strings.CutPrefix(line, "data: "); ok {
			assertShape(t, frame)
		}
	}
}

// TestShapesCatchMistakes shows the check fails on a misspelt, missing, extra or
// mistyped field, nested ones included.
func TestShapesCatchMistakes(t *testing.T) {
	good := `{"type":"HystrixUtilization","commands":{"A":{"activeCount":1}},` +
		`"threadpools":{"P":{"activeCount":1,"queueSize":0,"corePoolSize":2,"poolSize":1,"utilization":50}}}`
	bad := map[string]string{
		"misspelt": strings.Replace(good, `"queueSize"`, `"queuedSize"`, 1),
		"missing":  strings.Replace(good, `"poolSize":1,`, ``, 1),
		"extra":    strings.Replace(good, `"activeCount":1}`, `"activeCount":1,"x":1}`, 1),
		"mistyped": strings.Replace(good, `"corePoolSize":2`, `"corePoolSize":"2"`, 1),
		"fraction": strings.Replace(good, `"utilization":50`, `"utilization":0.5`, 1),
	}
	assertShape(t, good)
	for name, frame := range bad {
		var obj map[string]any
		require.NoError(t, json.Unmarshal([]byte(frame), &obj))
		var r recorder
		checkShape(&r, "", obj, utilizationShape)
		assert.True(t, r.failed, "%s: %s", name, frame)
	}
}

// recorder is a reporter that only records whether a check failed.
type recorder struct{ failed bool }

func (*recorder) Helper()                 {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
