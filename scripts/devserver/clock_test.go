package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Each SIGUSR1 moves the stepped clock one step ahead and says so.
func TestTheSteppedClockMovesOnASignal(t *testing.T) {
	var logs bytes.Buffer
	c := steppedClock(time.Hour, slog.New(slog.NewTextHandler(&logs, nil)))
	if d := c.Now().Sub(time.Now()); d > time.Second || d < -time.Second {
		t.Fatalf("before any signal the clock is %v off", d)
	}
	for signals := 1; signals <= 2; signals++ {
		syscall.Kill(os.Getpid(), syscall.SIGUSR1)
		target := time.Duration(signals) * time.Hour
		for deadline := time.Now().Add(5 * time.Second); c.Now().Sub(time.Now()) < target-time.Second; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the clock is %v ahead, want %v", c.Now().Sub(time.Now()), target)
			}
		}
	}
	if d := c.Now().Sub(time.Now()); d > 2*time.Hour+time.Second {
		t.Fatalf("two signals moved the clock %v", d)
	}
	time.Sleep(50 * time.Millisecond)
	if !strings.Contains(logs.String(), "ahead=2h0m0s") {
		t.Fatalf("the log does not say how far ahead the clock is: %s", logs.String())
	}
}

func TestABadClockStepStopsTheDevServer(t *testing.T) {
	env := map[string]string{"DEVSERVER_CLOCK_STEP": "soon"}
	err := run(context.Background(), func(k string) string { return env[k] }, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "DEVSERVER_CLOCK_STEP") {
		t.Fatalf("got %v", err)
	}
}
