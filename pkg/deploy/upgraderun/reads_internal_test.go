package upgraderun

import (
	"testing"
	"time"
)

func TestAWaitReadsWhenItsStepIsExpectedToEnd(t *testing.T) {
	s := time.Second
	cases := []struct {
		name    string
		took    []time.Duration // the latest steps' waits
		elapsed time.Duration
		reads   int
		poll    time.Duration
		untimed bool
		want    time.Duration
	}{
		{name: "with nothing to expect a wait reads at once", poll: 10 * s, want: 0},
		{name: "with nothing to expect it then reads every poll", elapsed: 3 * s, reads: 1, poll: 10 * s, want: 10 * s},
		{name: "a step expected in 10 s is first read shortly before", took: []time.Duration{10 * s}, poll: 2 * s, want: 9800 * time.Millisecond},
		{name: "a step expected in 12 minutes is read once a minute meanwhile", took: []time.Duration{12 * time.Minute}, poll: 10 * s, want: time.Minute},
		{name: "a poll longer than a minute is kept", took: []time.Duration{12 * time.Minute}, poll: 2 * time.Minute, want: 2 * time.Minute},
		{name: "near the expected end it reads every 200 ms", took: []time.Duration{10 * s}, elapsed: 10 * s, reads: 1, poll: 10 * s, want: 200 * time.Millisecond},
		{name: "a poll shorter than 200 ms is kept near the end", took: []time.Duration{10 * s}, elapsed: 10 * s, reads: 1, poll: 50 * time.Millisecond, want: 50 * time.Millisecond},
		{name: "past its five reads near the end it reads every poll", took: []time.Duration{10 * s}, elapsed: 11 * s, reads: 6, poll: 10 * s, want: 10 * s},
		{name: "the middle of the latest steps is expected, not a slow one", took: []time.Duration{10 * s, 11 * s, 90 * s}, poll: 2 * s, want: 10800 * time.Millisecond},
		{name: "an upgrade an earlier run sent is read at once", took: []time.Duration{10 * s}, poll: 10 * s, untimed: true, want: 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rd := newReads(0, 1)
			for _, d := range c.took {
				rd.learn(d)
			}
			if got := rd.after(c.elapsed, c.reads, c.poll, !c.untimed); got != c.want {
				t.Errorf("after %s and %d reads: next read in %s, want %s", c.elapsed, c.reads, got, c.want)
			}
		})
	}
}

func TestARolloutReadsAtMost125TimesInAnyMinuteUnlessToldOtherwise(t *testing.T) {
	for _, parallel := range []int{1, 5, 50} {
		rd := newReads(0, parallel)
		start := time.Now()
		inAMinute := 0
		for range 400 {
			if rd.pace.ReserveAt(start, 1) < time.Minute {
				inAMinute++
			}
		}
		if inAMinute > MostReadsAMinute || inAMinute < MostReadsAMinute-1 {
			t.Errorf("--parallel %d: %d reads may go in the first minute, want %d", parallel, inAMinute, MostReadsAMinute)
		}
	}
}

func TestOnlyTheLatestStepsAreExpectedFrom(t *testing.T) {
	rd := newReads(0, 1)
	for _, d := range []time.Duration{time.Hour, time.Hour, time.Hour, 1, 2, 3, 4, 5} {
		rd.learn(d)
	}
	if got, ok := rd.expected(); !ok || got != 3 {
		t.Errorf("expected %s, want the middle of the latest five, 3ns", got)
	}
}
