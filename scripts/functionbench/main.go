// Command functionbench prints each deployed function's start-up figures
// (make bench), each function's own binary run as the Go buildpack runs it
// (scripts/bench.sh builds them into -functions/<introductions.Key>). Per
// function, one row: the status of its first answer other than 503 to one of
// its routes; exec to that answer, median of -runs starts, beside a bare
// function's (started before each start, under the same load) and their
// ratio; VmRSS after -settle more; and the Firestore connections and gRPC
// calls made by the answer and by the end of the settle, counted by a
// loopback proxy in front of FIRESTORE_EMULATOR_HOST, whose functionbench
// project is wiped before each start. The first row, Bare against itself,
// is the run's noise.
//
//	functionbench [-functions bin/functions] [-bare bin/functionbench-bare] [-runs 5] [-settle 3s]
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	introductions "github.com/ownersite/introductions"
	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/shared/formregistry"
)

const (
	project  = "functionbench"
	database = "introductions"
)

// probe is the request that asks a function for its first answer.
type probe struct{ method, path, body string }

var bareProbe = probe{"GET", "/", ""}

// probes holds one request per function; "{form}" is a registry form id.
var probes = map[string]probe{
	"Challenge":      {"GET", "/api/introductions/challenge", ""},
	"Forms":          {"GET", "/api/forms/{form}", ""},
	"Drafts":         {"POST", "/api/introductions", "{}"},
	"Confirmation":   {"POST", "/api/introductions/functionbench/confirmation", "{}"},
	"DeliveryEvents": {"POST", "/hooks/delivery/mailgun", "{}"},
	"Sweep":          {"POST", "/internal/sweep", ""},
	"Admin":          {"GET", "/admin/api/health", ""},
}

// result is one function's median figures; status is the last start's.
type result struct {
	status                      int
	start                       time.Duration
	rssMiB                      float64
	connsAtAnswer, connsSettled int64
	callsAtAnswer, callsSettled int64
}

func main() {
	functions := flag.String("functions", "bin/functions", "the directory of each function's built binary, named by its key (introductions.Key)")
	bare := flag.String("bare", "bin/functionbench-bare", "the built bare function")
	runs := flag.Int("runs", 5, "starts per function (medians are printed)")
	settle := flag.Duration("settle", 3*time.Second, "how long after the first answer to keep counting before reading memory")
	flag.Parse()
	upstream := os.Getenv("FIRESTORE_EMULATOR_HOST")
	if upstream == "" {
		fail("FIRESTORE_EMULATOR_HOST is unset: start the emulator (scripts/emulator.sh start)")
	}
	registry, err := formregistry.Load()
	if err != nil || len(registry.FormIDs()) == 0 {
		fail(fmt.Sprintf("form registry: %v", err))
	}
	proxy, err := newCountingProxy(upstream)
	if err != nil {
		fail(err.Error())
	}
	defer proxy.Close()
	b := benchmark{bare: *bare, proxy: proxy, upstream: upstream, runs: *runs, settle: *settle}

	out := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(out, "function\tfirst answer\texec→answer ms (median of %d)\tbare ms\tratio\tRSS MiB\tFirestore conns (answer/+%s)\tgRPC calls (answer/+%s)\t\n", *runs, *settle, *settle)
	row := func(name string, r result, bare time.Duration) {
		fmt.Fprintf(out, "%s\t%d\t%.1f\t%.1f\t%.2f\t%.1f\t%d/%d\t%d/%d\t\n", name, r.status,
			ms(r.start), ms(bare), float64(r.start)/float64(bare),
			r.rssMiB, r.connsAtAnswer, r.connsSettled, r.callsAtAnswer, r.callsSettled)
	}
	r, ref := b.measure(*bare, "Bare", bareProbe)
	row("Bare", r, ref)
	for _, fn := range introductions.Functions {
		name := fn.Name
		p, ok := probes[name]
		if !ok {
			fail("no probe for function " + name + ": add one to probes")
		}
		p.path = strings.ReplaceAll(p.path, "{form}", registry.FormIDs()[0])
		if !routed(fn, p) {
			fail(fmt.Sprintf("%s %s is none of %s's routes %q", p.method, p.path, name, fn.Patterns()))
		}
		r, ref := b.measure(filepath.Join(*functions, introductions.Key(name)), name, p)
		row(name, r, ref)
	}
	out.Flush()
}

// routed reports whether p is answered by one of fn's routes.
func routed(fn wiring.Function, p probe) bool {
	mux := http.NewServeMux()
	for _, pattern := range fn.Patterns() {
		mux.Handle(pattern, http.NotFoundHandler())
	}
	req, _ := http.NewRequest(p.method, "http://localhost"+p.path, nil)
	_, pattern := mux.Handler(req)
	return pattern != ""
}

type benchmark struct {
	bare     string // the bare function's binary
	proxy    *countingProxy
	upstream string
	runs     int
	settle   time.Duration
}

// measure starts bin b.runs times, each after a bare function's start, and returns both medians.
func (b benchmark) measure(bin, target string, p probe) (result, time.Duration) {
	var rs, bare []result
	for range b.runs {
		bare = append(bare, b.once(b.bare, "Bare", bareProbe, false))
		rs = append(rs, b.once(bin, target, p, true))
	}
	start := func(r result) time.Duration { return r.start }
	return result{
		status:        rs[len(rs)-1].status,
		start:         median(rs, start),
		rssMiB:        median(rs, func(r result) float64 { return r.rssMiB }),
		connsAtAnswer: median(rs, func(r result) int64 { return r.connsAtAnswer }),
		connsSettled:  median(rs, func(r result) int64 { return r.connsSettled }),
		callsAtAnswer: median(rs, func(r result) int64 { return r.callsAtAnswer }),
		callsSettled:  median(rs, func(r result) int64 { return r.callsSettled }),
	}, median(bare, start)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// median is the median of f over rs (the upper one of an even count).
func median[T int64 | float64 | time.Duration](rs []result, f func(result) T) T {
	vs := make([]T, len(rs))
	for i, r := range rs {
		vs[i] = f(r)
	}
	slices.Sort(vs)
	return vs[len(vs)/2]
}

// once wipes the emulator's project, starts bin and returns its figures.
func (b benchmark) once(bin, target string, p probe, settle bool) result {
	wipe(b.upstream)
	b.proxy.Reset()
	port := freePort()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "FUNCTION_TARGET="+target, "PORT="+port,
		"FIRESTORE_EMULATOR_HOST="+b.proxy.Addr(), "FIRESTORE_PROJECT="+project, "FIRESTORE_DATABASE="+database, "LOG_LEVEL=error")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	began := time.Now()
	if err := cmd.Start(); err != nil {
		fail(err.Error())
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop := func() { cmd.Process.Kill(); <-exited }
	defer stop()
	var r result
	var err error
	r.status, err = firstAnswer("http://127.0.0.1:"+port, p, exited)
	r.start = time.Since(began)
	r.connsAtAnswer, r.callsAtAnswer = b.proxy.Counts()
	if err == nil && r.status >= 500 {
		err = fmt.Errorf("answered %d", r.status)
	}
	if err != nil {
		stop()
		fail(fmt.Sprintf("%s, %s %s: %v; its stderr:\n%s", target, p.method, p.path, err, stderr.String()))
	}
	if !settle {
		return r
	}
	time.Sleep(b.settle)
	r.connsSettled, r.callsSettled = b.proxy.Counts()
	r.rssMiB = residentMiB(cmd.Process.Pid)
	return r
}

// firstAnswer sends p until an answer other than 503 and returns its status.
func firstAnswer(base string, p probe, exited <-chan struct{}) (int, error) {
	client := &http.Client{Timeout: 30 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	status := 0
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return 0, errors.New("exited before answering")
		default:
		}
		req, _ := http.NewRequest(p.method, base+p.path, strings.NewReader(p.body))
		if p.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if status = resp.StatusCode; status != http.StatusServiceUnavailable {
				return status, nil
			}
		}
		time.Sleep(time.Millisecond)
	}
	return status, fmt.Errorf("no answer but 503 within 30 s (last status %d)", status)
}

// wipe deletes every document of the benchmark's project in the emulator.
func wipe(emulator string) {
	url := fmt.Sprintf("http://%s/emulator/v1/projects/%s/databases/%s/documents", emulator, project, database)
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fail("wiping the emulator: " + err.Error())
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fail("wiping the emulator: " + resp.Status)
	}
}

func freePort() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err.Error())
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// residentMiB reads VmRSS from /proc.
func residentMiB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		fail(err.Error())
	}
	for _, line := range strings.Split(string(b), "\n") {
		var kb float64
		if _, err := fmt.Sscanf(line, "VmRSS: %f kB", &kb); err == nil {
			return kb / 1024
		}
	}
	fail("no VmRSS in /proc/" + strconv.Itoa(pid) + "/status")
	return 0
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "functionbench:", msg)
	os.Exit(1)
}
