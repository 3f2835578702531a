// Command rexmle-scriptedllm serves the scripted OpenAI-compatible LLM of
// package scriptedllm on loopback until it is interrupted, for running an
// agent by hand (e.g. a local agent through `mage run`) without a model or
// an API key:
//
//	go run ./cmd/rexmle-scriptedllm -agent aide -addr 127.0.0.1:8765 -record llm.jsonl
//
// It prints the base URL to give the agent (…/v1). With -record, every
// request is appended to the file as one JSON line, an "llm" event of the
// shared recording format (message contents cut to -cut characters; no
// key).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/rexmle/rexmle/pipeline/scriptedllm"
)

func main() {
	agent := flag.String("agent", "", "answer as scriptedllm.ForAgent(ID) does (aide, ml-master, rd-agent, standin; others get the generic engineer)")
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to listen on")
	record := flag.String("record", "", "append each request to this JSON-lines file")
	cutAt := flag.Int("cut", 300, "cut recorded message contents to this many characters")
	flag.Parse()
	srv := scriptedllm.New(scriptedllm.ForAgent(*agent))
	start := time.Now()
	if *record != "" {
		f, err := os.OpenFile(*record, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "rexmle-scriptedllm:", err)
			os.Exit(1)
		}
		defer f.Close()
		var mu sync.Mutex
		srv.OnRequest = func(r scriptedllm.Request) {
			b, _ := json.Marshal(r.Event(start, *cutAt))
			mu.Lock()
			defer mu.Unlock()
			f.Write(append(b, '\n'))
		}
	}
	if err := srv.Listen(*addr); err != nil {
		fmt.Fprintln(os.Stderr, "rexmle-scriptedllm:", err)
		os.Exit(1)
	}
	fmt.Printf("scripted LLM for agent %q: base URL %s (any key; Ctrl-C stops it)\n", *agent, srv.BaseURL())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	srv.Close()
	fmt.Printf("served %d request(s)\n", len(srv.Requests()))
}
