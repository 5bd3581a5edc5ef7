// Command servicebench prints the dev server's start-up and memory figures
// (make bench): process start to first answered challenge, against a bare
// net/http server started the same way in the same run; and resident memory
// after 1,000 drafts, each from a source of its own (X-Forwarded-For, as
// behind Cloud Run) so none owes escalated work, in an emptied project,
// against Cloud Run's 128 MiB tier. It needs a built
// devserver binary and a running Firestore emulator (FIRESTORE_EMULATOR_HOST).
//
//	servicebench -devserver bin/devserver [-drafts 1000]
//	servicebench reference   (serves a trivial handler: the reference)
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "reference" {
		http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"ok":true}`))
		}))
		return
	}
	devserver := flag.String("devserver", "bin/devserver", "the built dev server")
	drafts := flag.Int("drafts", 1000, "drafts to keep before reading resident memory")
	starts := flag.Int("starts", 5, "start-ups to time (the median is printed)")
	flag.Parse()
	if os.Getenv("FIRESTORE_EMULATOR_HOST") == "" {
		fail("FIRESTORE_EMULATOR_HOST is unset: start the emulator (scripts/emulator.sh start)")
	}
	self, _ := os.Executable()
	env := []string{"FIRESTORE_PROJECT=servicebench", "POW_MAX_NUMBER=1000", "CLIENT_ADDRESS=cloud-run",
		"RATE_LIMIT_EMAIL_PER_HOUR=10000", "FLOOD_LIMIT=1000000", "LOG_LEVEL=error"}

	startOnce := func(bin string, args, env []string, path string) func() time.Duration {
		return func() time.Duration {
			d, p, _ := startAndWait(bin, args, env, path)
			p.Process.Kill()
			p.Wait()
			return d
		}
	}
	ref := median(*starts, startOnce(self, []string{"reference"}, nil, "/"))
	svc := median(*starts, startOnce(*devserver, nil, env, "/api/introductions/challenge"))
	fmt.Printf("start to first answer: devserver %s, bare net/http reference %s, ratio %.2f\n", svc.Round(time.Millisecond), ref.Round(time.Millisecond), float64(svc)/float64(ref))

	// A fresh project: no source's count is left from an earlier run.
	wipe, _ := http.NewRequest(http.MethodDelete, "http://"+os.Getenv("FIRESTORE_EMULATOR_HOST")+"/emulator/v1/projects/servicebench/databases/introductions/documents", nil)
	if resp, err := http.DefaultClient.Do(wipe); err != nil || resp.StatusCode != http.StatusOK {
		fail(fmt.Sprintf("wiping the emulator: %v %v", err, resp))
	}
	_, p, base := startAndWait(*devserver, nil, env, "/api/introductions/challenge")
	defer func() { p.Process.Kill(); p.Wait() }()
	began := time.Now()
	for i := 0; i < *drafts; i++ {
		keep(base, i)
	}
	elapsed := time.Since(began)
	rss, hwm := memory(p.Process.Pid)
	fmt.Printf("after %d drafts (%s, %.1f drafts/s): resident %.1f MiB, peak %.1f MiB; %.0f%% of the 128 MiB tier\n",
		*drafts, elapsed.Round(time.Millisecond), float64(*drafts)/elapsed.Seconds(), rss, hwm, 100*hwm/128)
}

// startAndWait starts a server and returns the time from exec to its first
// 200 on path, the process and its base URL.
func startAndWait(bin string, args, env []string, path string) (time.Duration, *exec.Cmd, string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err.Error())
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	base := "http://127.0.0.1:" + port
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), env...), "PORT="+port)
	cmd.Stderr = io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fail(err.Error())
	}
	client := &http.Client{Timeout: time.Second}
	for time.Since(start) < 30*time.Second {
		resp, err := client.Get(base + path)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return time.Since(start), cmd, base
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	fail(bin + " did not answer within 30 s")
	return 0, nil, ""
}

func median(n int, f func() time.Duration) time.Duration {
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = f()
	}
	slices.Sort(ds)
	return ds[n/2]
}

func keep(base string, i int) {
	resp, err := http.Get(base + "/api/introductions/challenge")
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

// memory reads resident and peak resident memory in MiB from /proc.
func memory(pid int) (rss, hwm float64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		fail(err.Error())
	}
	for _, line := range strings.Split(string(b), "\n") {
		var kb float64
		if _, err := fmt.Sscanf(line, "VmRSS: %f kB", &kb); err == nil {
			rss = kb / 1024
		} else if _, err := fmt.Sscanf(line, "VmHWM: %f kB", &kb); err == nil {
			hwm = kb / 1024
		}
	}
	return rss, hwm
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "servicebench:", msg)
	os.Exit(1)
}
