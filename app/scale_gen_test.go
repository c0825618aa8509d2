package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scaleContent is how the scaling benchmark makes each copy of the sample unique: every
// user message gets Words words drawn from the first Vocabulary words of scaleWords,
// by a generator seeded with Seed, the copy and the conversation. Two contents that
// differ (3 of 16 words against 4 of 64) must cost the same per conversation.
type scaleContent struct {
	Words, Vocabulary int
	Seed              uint64
}

// scaleWords are the words appended to user messages: plain words of no domain, so they
// vary the text without adding a new topic.
var scaleWords = strings.Fields(`
	please thanks again today still really just also quickly maybe soon later kindly
	honestly actually anyway meanwhile besides otherwise perhaps certainly definitely
	probably basically simply exactly clearly surely truly frankly indeed however
	moreover finally eventually recently currently usually normally generally hopefully
	luckily sadly oddly strangely naturally obviously apparently seemingly reportedly
	briefly roughly nearly almost barely hardly merely purely mostly partly fully
	entirely largely slightly somewhat rather quite`)

// writeScaleUpload writes n unique conversations made from the sample as gzipped
// OpenAI JSONL under dir and returns the file's path and its uncompressed size. Copy k
// of sample conversation i has the id "<id>-k<k>" and its own appended words.
func writeScaleUpload(tb testing.TB, dir string, n int, content scaleContent) (string, int64) {
	tb.Helper()
	if content.Vocabulary > len(scaleWords) {
		tb.Fatalf("scale: a vocabulary of %d words; there are %d", content.Vocabulary, len(scaleWords))
	}
	sample := sampleLines(tb)
	path := filepath.Join(dir, fmt.Sprintf("scale-%d.jsonl.gz", n))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zw, err := gzip.NewWriterLevel(f, gzip.BestSpeed)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(zw, 1<<20)
	var size int64
	for i := range n {
		k, conv := i/len(sample), sample[i%len(sample)]
		line, err := varied(conv, k, i%len(sample), content)
		if err != nil {
			tb.Fatal(err)
		}
		m, _ := w.Write(line)
		size += int64(m)
		_ = w.WriteByte('\n')
		size++
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return path, size
}

// sampleLines are the sample's conversations, decoded.
func sampleLines(tb testing.TB) []map[string]any {
	tb.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "airline-100.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	lines := bufio.NewScanner(f)
	lines.Buffer(nil, 10<<20)
	for lines.Scan() {
		var conv map[string]any
		if err := json.Unmarshal(lines.Bytes(), &conv); err != nil {
			tb.Fatal(err)
		}
		out = append(out, conv)
	}
	if err := lines.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// varied is copy k of sample conversation i: its id made unique and words appended to
// every user message. conv itself is left as it is.
func varied(conv map[string]any, k, i int, content scaleContent) ([]byte, error) {
	rng := rand.New(rand.NewPCG(content.Seed, uint64(k)<<20|uint64(i)))
	msgs, _ := conv["messages"].([]any)
	out := make([]any, len(msgs))
	for j, raw := range msgs {
		m, _ := raw.(map[string]any)
		text, isText := m["content"].(string)
		if m["role"] != "user" || !isText {
			out[j] = raw
			continue
		}
		copyOf := make(map[string]any, len(m))
		for key, v := range m {
			copyOf[key] = v
		}
		var b strings.Builder
		b.WriteString(text)
		for range content.Words {
			b.WriteByte(' ')
			b.WriteString(scaleWords[rng.IntN(content.Vocabulary)])
		}
		copyOf["content"] = b.String()
		out[j] = copyOf
	}
	line := make(map[string]any, len(conv))
	for key, v := range conv {
		line[key] = v
	}
	line["messages"] = out
	line["conversation_id"] = fmt.Sprintf("%v-k%d", conv["conversation_id"], k)
	return json.Marshal(line)
}
