package workspace

import (
	"time"
)

// busyDelays are the pauses between the attempts of retryBusy: about 1.6 s
// in all, long enough for a virus scanner, an indexer or an editor's
// file watcher to let go of a file, short enough for an agent's tool call.
var busyDelays = []time.Duration{
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond,
	800 * time.Millisecond,
}

// retryBusy runs op until it succeeds, fails with an error busy does not
// accept, or busyDelays are used up (sleep pauses between attempts). It
// returns op's last error and how many attempts were made.
func retryBusy(op func() error, busy func(error) bool, sleep func(time.Duration)) (err error, attempts int) {
	for i := 0; ; i++ {
		err = op()
		attempts++
		if err == nil || !busy(err) || i >= len(busyDelays) {
			return err, attempts
		}
		sleep(busyDelays[i])
	}
}

// busyTotal is the time retryBusy waits in all before giving up.
func busyTotal() time.Duration {
	var d time.Duration
	for _, x := range busyDelays {
		d += x
	}
	return d
}
