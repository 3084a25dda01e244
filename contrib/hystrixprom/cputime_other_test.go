//go:build !unix

package hystrixprom

import "time"

// cpuTime is not measured here: scrapes reports no cpu-ms/scrape.
func cpuTime() time.Duration { return 0 }
