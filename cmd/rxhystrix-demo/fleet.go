package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/contrib/hystrixetcd"
	"github.com/rxhystrix/rxhystrix/dashboard"
)

// fleetConfig is the demo's fleet scope: with -etcd the demo joins a fleet in etcd,
// registers its stream, shares its breakers (hystrixetcd.Signals) and serves the fleet
// page and aggregated stream under /fleet/.
type fleetConfig struct {
	etcd     string // comma-separated endpoints; empty: no fleet
	prefix   string
	instance string
	quorum   int
	lease    time.Duration
}

// register declares the fleet flags.
func (fc *fleetConfig) register(fs *flag.FlagSet) {
	host, _ := os.Hostname()
	fs.StringVar(&fc.etcd, "etcd", "", "etcd endpoints, comma-separated: join the fleet there (breaker signals, fleet dashboard on /fleet/)")
	fs.StringVar(&fc.prefix, "fleet-prefix", "/rxhystrix/fleet/", "etcd key prefix of the fleet")
	fs.StringVar(&fc.instance, "instance", fmt.Sprintf("%s-%d", host, os.Getpid()), "instance id in the fleet")
	fs.IntVar(&fc.quorum, "quorum", 2, "other instances with a breaker open that open it here")
	fs.DurationVar(&fc.lease, "lease", 5*time.Second, "TTL of the instance's lease: how long a killed instance stays registered")
}

// fleetPath is where the demo serves the fleet page; its aggregated stream is under it.
const fleetPath = "/fleet/"

// joinFleet joins the fleet of fc (nothing without -etcd) and mounts the fleet page and
// aggregated stream on mux; stop leaves the fleet.
func joinFleet(ctx context.Context, fc fleetConfig, rt *command.Runtime, mux *http.ServeMux, addr net.Addr, out io.Writer) (stop func() error, err error) {
	if fc.etcd == "" {
		return func() error { return nil }, nil
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(fc.etcd, ","),
		DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return nil, err
	}
	var closers []func() error
	stop = func() error {
		var errs []error
		for i := len(closers) - 1; i >= 0; i-- {
			errs = append(errs, closers[i]())
		}
		return errors.Join(append(errs, client.Close())...)
	}
	fail := func(err error) (func() error, error) { return nil, errors.Join(err, stop()) }
	jctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	member, err := hystrixetcd.Join(jctx, client, fc.prefix, fc.instance, fc.lease)
	if err != nil {
		return fail(err)
	}
	closers = append(closers, member.Close)
	signals, err := hystrixetcd.NewSignals(jctx, member, rt.Breakers(), fc.quorum)
	if err != nil {
		return fail(err)
	}
	closers = append(closers, signals.Close)
	remove, err := rt.Config().AddSource(signals)
	if err != nil {
		return fail(err)
	}
	closers = append(closers, func() error { remove(); return nil })
	fleet := dashboard.NewFleet(nil)
	closers = append(closers, func() error { fleet.Close(); return nil })
	watch, err := hystrixetcd.WatchInstances(jctx, client, fc.prefix, fleet.SetStreams)
	if err != nil {
		return fail(err)
	}
	closers = append(closers, watch.Close)
	mux.Handle(fleetPath+"hystrix.stream", fleet.StreamHandler())
	mux.Handle(fleetPath, dashboard.NewPageHandler(fleetPath+"hystrix.stream"))
	member.Register("http://" + addr.String() + "/hystrix.stream")
	fmt.Fprintf(out, "rxhystrix demo: instance %s of the fleet %s on %s (quorum %d); fleet page on http://%s%s\n",
		fc.instance, fc.prefix, fc.etcd, fc.quorum, addr, fleetPath)
	return stop, nil
}
