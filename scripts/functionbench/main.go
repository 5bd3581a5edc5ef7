// Command functionbench prints make bench's start-up figures. For each
// deployed function, its own binary run as the Go buildpack runs it
// (-functions/<introductions.Key>, built by scripts/bench.sh), one row: its
// first answer other than 503 to one of its routes, exec to that answer
// (median of -runs starts) beside a bare function's started just before it,
// their ratio, VmRSS after -settle more, and the Firestore connections and
// gRPC calls by the answer and by the end of the settle, counted by a
// loopback proxy in front of FIRESTORE_EMULATOR_HOST. The first row, Bare
// against itself, is the run's noise. With -devserver: the dev server's start
// to its first challenge against a bare net/http server (functionbench
// reference), then its resident memory after -drafts drafts, each from a
// source of its own, against Cloud Run's 128 MiB tier.
//
//	functionbench [-functions bin/functions] [-bare bin/functionbench-bare] [-runs 5] [-settle 3s]
//	functionbench -devserver bin/devserver [-drafts 1000] [-runs 5]
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
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

const database = "introductions"

// probe is the request that asks a function for its first answer.
type probe struct{ method, path, body string }

var (
	bareProbe      = probe{"GET", "/", ""}
	challengeProbe = probe{"GET", "/api/introductions/challenge", ""}
)

// probes holds one request per function; "{form}" is a registry form id.
var probes = map[string]probe{
	"Challenge":      challengeProbe,
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
	if len(os.Args) > 1 && os.Args[1] == "reference" {
		http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"ok":true}`))
		}))
		return
	}
	functions := flag.String("functions", "bin/functions", "the directory of each function's built binary, named by its key (introductions.Key)")
	bare := flag.String("bare", "bin/functionbench-bare", "the built bare function")
	devserver := flag.String("devserver", "", "the built dev server: time it and read its memory instead of the functions'")
	drafts := flag.Int("drafts", 1000, "with -devserver, drafts to keep before reading resident memory")
	runs := flag.Int("runs", 5, "starts per function (medians are printed)")
	settle := flag.Duration("settle", 3*time.Second, "how long after the first answer to keep counting before reading memory")
	flag.Parse()
	upstream := os.Getenv("FIRESTORE_EMULATOR_HOST")
	if upstream == "" {
		fail("FIRESTORE_EMULATOR_HOST is unset: start the emulator (scripts/emulator.sh start)")
	}
	if *devserver != "" {
		benchDevserver(*devserver, upstream, *runs, *drafts)
		return
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
	return result{
		status:        rs[len(rs)-1].status,
		start:         median(rs, startOf),
		rssMiB:        median(rs, func(r result) float64 { return r.rssMiB }),
		connsAtAnswer: median(rs, func(r result) int64 { return r.connsAtAnswer }),
		connsSettled:  median(rs, func(r result) int64 { return r.connsSettled }),
		callsAtAnswer: median(rs, func(r result) int64 { return r.callsAtAnswer }),
		callsSettled:  median(rs, func(r result) int64 { return r.callsSettled }),
	}, median(bare, startOf)
}

func startOf(r result) time.Duration { return r.start }

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
	wipe(b.upstream, "functionbench")
	b.proxy.Reset()
	s := start(p, []string{"FUNCTION_TARGET=" + target, "FIRESTORE_EMULATOR_HOST=" + b.proxy.Addr(),
		"FIRESTORE_PROJECT=functionbench", "FIRESTORE_DATABASE=" + database, "LOG_LEVEL=error"}, bin)
	defer s.stop()
	r := result{status: s.status, start: s.took}
	r.connsAtAnswer, r.callsAtAnswer = b.proxy.Counts()
	if !settle {
		return r
	}
	time.Sleep(b.settle)
	r.connsSettled, r.callsSettled = b.proxy.Counts()
	r.rssMiB = memoryMiB(s.cmd.Process.Pid, "VmRSS")
	return r
}

// started is a started process, answering at base.
type started struct {
	cmd    *exec.Cmd
	base   string
	status int           // of its first answer
	took   time.Duration // from exec to that answer
	exited chan struct{}
}

func (s started) stop() { s.cmd.Process.Kill(); <-s.exited }

// start execs bin with args, env and a free PORT, and sends p until an answer other than 503;
// an error or a 5xx ends the benchmark.
func start(p probe, env []string, bin string, args ...string) started {
	port := freePort()
	s := started{cmd: exec.Command(bin, args...), base: "http://127.0.0.1:" + port, exited: make(chan struct{})}
	s.cmd.Env = append(append(os.Environ(), env...), "PORT="+port)
	var stderr bytes.Buffer
	s.cmd.Stderr = &stderr
	began := time.Now()
	if err := s.cmd.Start(); err != nil {
		fail(err.Error())
	}
	go func() { s.cmd.Wait(); close(s.exited) }()
	var err error
	s.status, err = firstAnswer(s.base, p, s.exited)
	s.took = time.Since(began)
	if err == nil && s.status >= 500 {
		err = fmt.Errorf("answered %d", s.status)
	}
	if err != nil {
		s.stop()
		fail(fmt.Sprintf("%s, %s %s: %v; its stderr:\n%s", bin, p.method, p.path, err, stderr.String()))
	}
	return s
}

// benchDevserver prints the dev server's start-up against the reference's, then its memory
// after drafts drafts.
func benchDevserver(bin, upstream string, runs, drafts int) {
	self, _ := os.Executable()
	env := []string{"FIRESTORE_PROJECT=devserverbench", "POW_MAX_NUMBER=1000", "CLIENT_ADDRESS=cloud-run",
		"RATE_LIMIT_EMAIL_PER_HOUR=10000", "FLOOD_LIMIT=1000000", "LOG_LEVEL=error"}
	var ref, svc []result
	for range runs {
		p := start(bareProbe, nil, self, "reference")
		p.stop()
		ref = append(ref, result{start: p.took})
		p = start(challengeProbe, env, bin)
		p.stop()
		svc = append(svc, result{start: p.took})
	}
	r, d := median(ref, startOf), median(svc, startOf)
	fmt.Printf("start to first answer: devserver %s, bare net/http reference %s, ratio %.2f\n", d.Round(time.Millisecond), r.Round(time.Millisecond), float64(d)/float64(r))

	wipe(upstream, "devserverbench") // no source's count is left from an earlier run
	s := start(challengeProbe, env, bin)
	defer s.stop()
	began := time.Now()
	for i := range drafts {
		keep(s.base, i)
	}
	elapsed := time.Since(began)
	rss, hwm := memoryMiB(s.cmd.Process.Pid, "VmRSS"), memoryMiB(s.cmd.Process.Pid, "VmHWM")
	fmt.Printf("after %d drafts (%s, %.1f drafts/s): resident %.1f MiB, peak %.1f MiB; %.0f%% of the 128 MiB tier\n",
		drafts, elapsed.Round(time.Millisecond), float64(drafts)/elapsed.Seconds(), rss, hwm, 100*hwm/128)
}

// keep solves a challenge and keeps draft i from a source of its own; anything but 201 ends
// the benchmark.
func keep(base string, i int) {
	resp, err := http.Get(base + challengeProbe.path)
	if err != nil {
		fail(err.Error())
	}
	var c struct {
		Algorithm, Challenge, Salt, Signature string
		Maxnumber                             int64
	}
	json.NewDecoder(resp.Body).Decode(&c)
	resp.Body.Close()
	var n int64
	for n = 0; n <= c.Maxnumber; n++ {
		sum := sha256.Sum256([]byte(c.Salt + strconv.FormatInt(n, 10)))
		if hex.EncodeToString(sum[:]) == c.Challenge {
			break
		}
	}
	payload, _ := json.Marshal(map[string]any{"algorithm": c.Algorithm, "challenge": c.Challenge, "number": n, "salt": c.Salt, "signature": c.Signature})
	body, _ := json.Marshal(map[string]any{"formId": "introduction", "formVersion": "1", "name": "Bench Visitor", "company": "Bench Co",
		"role": "Recruiter", "email": fmt.Sprintf("bench%d@example.com", i), "message": strings.Repeat("A fair message. ", 40),
		"consents": []any{}, "website": "", "altcha": base64.StdEncoding.EncodeToString(payload)})
	req, _ := http.NewRequest("POST", base+"/api/introductions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", fmt.Sprintf("198.51.%d.%d", i/250, i%250+1))
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		fail(err.Error())
	}
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusCreated {
		fail(fmt.Sprintf("draft %d: status %d", i, r.StatusCode))
	}
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

// wipe deletes every document of project's database in the emulator.
func wipe(emulator, project string) {
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

// memoryMiB reads field (VmRSS, VmHWM) of pid from /proc.
func memoryMiB(pid int, field string) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		fail(err.Error())
	}
	for _, line := range strings.Split(string(b), "\n") {
		var kb float64
		if _, err := fmt.Sscanf(line, field+": %f kB", &kb); err == nil {
			return kb / 1024
		}
	}
	fail("no " + field + " in /proc/" + strconv.Itoa(pid) + "/status")
	return 0
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "functionbench:", msg)
	os.Exit(1)
}
