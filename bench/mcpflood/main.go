// Command mcpflood measures what floods of clients cost `hashls mcp`
// (bench/mcp-flood.sh runs all three):
//
//   - initialize: N initialize requests over Streamable HTTP, each opening a
//     session that is never used again (84,000 took an unbounded server to
//     1 GB); prints the server's peak RSS (VmHWM) and the sessions left;
//
//   - slowbody: N connections that send headers and a few bytes of a body,
//     then nothing (1,100 exhausted a 1,024 open-file limit), while one
//     ordinary client initializes: prints how long it waited, and what the
//     slow ones got;
//
//   - cancel: a search of one big file over stdio, cancelled mid-file:
//     prints the CPU time the server spent from 100 ms after the cancel
//     on (zero when the work stopped within 100 ms).
//
//     go build -o /tmp/hashls . && go run ./bench/mcpflood -bin /tmp/hashls -mode initialize -n 84000
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	bin := flag.String("bin", "", "the hashls binary (required)")
	mode := flag.String("mode", "initialize", "initialize, slowbody or cancel")
	n := flag.Int("n", 84000, "initialize: requests; slowbody: connections; cancel: file size in MiB")
	workers := flag.Int("workers", 8, "initialize: concurrent clients")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "mcpflood: -bin /path/to/hashls is required")
		os.Exit(2)
	}
	var err error
	switch *mode {
	case "initialize":
		err = floodInitialize(*bin, *n, *workers)
	case "slowbody":
		err = floodSlowBodies(*bin, *n)
	case "cancel":
		err = cancelBigSearch(*bin, *n)
	default:
		err = fmt.Errorf("unknown -mode %q", *mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpflood:", err)
		os.Exit(1)
	}
}

// server is a running `hashls mcp --http 127.0.0.1:0`.
type server struct {
	cmd *exec.Cmd
	url string
}

// startHTTP starts the server; nofile > 0 gives it that open-file limit
// (through sh's ulimit: the flooding client keeps its own, higher one).
func startHTTP(bin string, nofile int) (*server, error) {
	root, err := os.MkdirTemp("", "mcpflood-root-")
	if err != nil {
		return nil, err
	}
	state, err := os.MkdirTemp("", "mcpflood-state-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--root", root, "mcp", "--http", "127.0.0.1:0")
	if nofile > 0 {
		cmd = exec.Command("sh", "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, nofile), bin, "--root", root, "mcp", "--http", "127.0.0.1:0")
	}
	cmd.Env = append(os.Environ(), "HASHLS_STATE_DIR="+state, "HASHLS_NO_HUB=1", "HASHLS_MCP_TOKEN=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`listening on (http://\S+)`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, stderr)
			return &server{cmd: cmd, url: m[1]}, nil
		}
	}
	cmd.Process.Kill()
	return nil, fmt.Errorf("hashls mcp --http did not report its address")
}

func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
	}
}

// status reads a field of /proc/PID/status in kB.
func status(pid int, field string) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`

func post(c *http.Client, url, body string) (int, error) {
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

func floodInitialize(bin string, n, workers int) error {
	s, err := startHTTP(bin, 0)
	if err != nil {
		return err
	}
	defer s.stop()
	pid := s.cmd.Process.Pid
	fmt.Printf("initialize flood: %d requests, %d clients, %s (pid %d), RSS at start %.1f MB\n", n, workers, s.url, pid, float64(status(pid, "VmRSS"))/1024)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				if st, err := post(client, s.url, initBody); err != nil || st != http.StatusOK {
					failed.Add(1)
				}
			}
		}()
	}
	stopSample := make(chan struct{})
	go func() {
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stopSample:
				return
			case <-t.C:
				fmt.Printf("  %6d requests, RSS %.1f MB\n", min(next.Load(), int64(n)), float64(status(pid, "VmRSS"))/1024)
			}
		}
	}()
	wg.Wait()
	close(stopSample)
	el := time.Since(start)
	fmt.Printf("done in %v (%.0f requests/s), %d failed; RSS now %.1f MB, peak RSS (VmHWM) %.1f MB\n",
		el.Round(time.Millisecond), float64(n)/el.Seconds(), failed.Load(), float64(status(pid, "VmRSS"))/1024, float64(status(pid, "VmHWM"))/1024)
	// A session after the flood works.
	if st, err := post(client, s.url, initBody); err != nil || st != http.StatusOK {
		return fmt.Errorf("initialize after the flood: %d %v", st, err)
	}
	return nil
}

func floodSlowBodies(bin string, n int) error {
	s, err := startHTTP(bin, 1024)
	if err != nil {
		return err
	}
	defer s.stop()
	pid := s.cmd.Process.Pid
	var limit uint64 // the server's open-file limit, from /proc
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "Max open files") {
			f := strings.Fields(l)
			limit, _ = strconv.ParseUint(f[3], 10, 64)
		}
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/mcp")
	fmt.Printf("slow bodies: %d connections to %s (server open-file limit %d)\n", n, addr, limit)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	var answered atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			fmt.Printf("  dial %d: %v\n", i, err)
			break
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 10000\r\n\r\n{\"jsonrpc\":", addr)
		wg.Add(1)
		go func() {
			defer wg.Done()
			line, _ := bufio.NewReader(c).ReadString('\n')
			if strings.Contains(line, " 408 ") {
				answered.Add(1)
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	fmt.Printf("  %d connections open; the server holds %d file descriptors\n", len(conns), len(fds))
	start := time.Now()
	client := &http.Client{Timeout: 5 * time.Minute}
	st, err := post(client, s.url, initBody)
	fmt.Printf("  an ordinary client's initialize: status %d (%v) after %v\n", st, err, time.Since(start).Round(time.Millisecond))
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
	}
	fmt.Printf("  %d of %d slow bodies answered 408 within %v\n", answered.Load(), len(conns), time.Since(start).Round(time.Second))
	if st != http.StatusOK {
		return fmt.Errorf("the ordinary client was not served")
	}
	return nil
}

// cpuTime is the process's user+system CPU time.
func cpuTime(pid int) time.Duration {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

func cancelBigSearch(bin string, mib int) error {
	root, err := os.MkdirTemp("", "mcpflood-cancel-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	f, err := os.Create(filepath.Join(root, "big.txt"))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	line := strings.Repeat("lorem ipsum dolor sit amet ", 3) + "\n"
	for n := 0; n < mib<<20; n += len(line) {
		w.WriteString(line)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	f.Close()
	state, _ := os.MkdirTemp("", "mcpflood-state-")
	defer os.RemoveAll(state)
	cmd := exec.CommandContext(context.Background(), bin, "--root", root, "mcp")
	cmd.Env = append(os.Environ(), "HASHLS_STATE_DIR="+state, "HASHLS_NO_HUB=1")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { in.Close(); cmd.Wait() }()
	rd := bufio.NewReader(out)
	send := func(s string) { io.WriteString(in, s+"\n") }
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`)
	rd.ReadString('\n')
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	pid := cmd.Process.Pid
	fmt.Printf("cancel: a search of one %d MiB file (no match, every line through the regex), cancelled after 1 s\n", mib)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"pattern":"\\w+\\s\\d","paths":"big.txt"}}}`)
	time.Sleep(time.Second)
	before := cpuTime(pid)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	at := time.Now()
	time.Sleep(100 * time.Millisecond)
	c100 := cpuTime(pid)
	time.Sleep(2 * time.Second)
	c2100 := cpuTime(pid)
	fmt.Printf("  CPU until the cancel: %v; from the cancel to +100 ms: %v; from +100 ms to +2.1 s: %v\n", before, c100-before, c2100-c100)
	send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	l, _ := rd.ReadString('\n')
	fmt.Printf("  ping after the cancel answered in %v: %s", time.Since(at.Add(2100*time.Millisecond)).Round(time.Millisecond), l)
	return nil
}
