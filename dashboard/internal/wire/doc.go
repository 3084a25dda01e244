// Package wire holds the JSON objects of the three Hystrix streams that package dashboard
// serves (/hystrix.stream, /hystrix/utilization.stream, /hystrix/config.stream), field
// for field in the shape Hystrix 1.5 writes them. They are internal: users mount the
// handlers, and only the dashboard's own code and tests (its browser tests in
// dashboard/e2e included) build these values.
package wire
