package ingest

import (
	"encoding/json"
	"github.com/checkup-dev/checkup/db/locale"
)

// eachKey reads the members of an object whose '{' has been read: fn gets each key and
// must consume its value.
func (d *doc) eachKey(fn func(key string) error) error {
	for d.dec.More() {
		line := d.line()
		tok, err := d.dec.Token()
		if err != nil {
			return d.fail(line, err)
		}
		key, _ := tok.(string)
		if err := fn(key); err != nil {
			return err
		}
	}
	return d.close()
}

// eachElement reads the value of key, which must be an array (or null), and calls fn
// for each element, which fn must consume. An array of objects is walked with eachKey
// by fn after it reads the '{'; fn is called before any token of the element is read.
func (d *doc) eachElement(key string, fn func() error) error {
	line := d.line()
	tok, err := d.dec.Token()
	if err != nil {
		return d.fail(line, err)
	}
	if tok == nil {
		return nil
	}
	if tok != json.Delim('[') {
		d.p.problem(lineLoc(line), "ingest.must_be_array", "Field", quote(key))
		return d.skipRest(tok)
	}
	for d.dec.More() {
		if err := fn(); err != nil {
			return err
		}
	}
	return d.close()
}

// skipValue consumes the value of key.
func (d *doc) skipValue(key string) error { return d.field(key, &skipValue{}) }

// openObject reads the '{' that starts an array element, or records that the element is
// not an object and skips it; ok is false then.
func (d *doc) openObject(what locale.Text) (ok bool, err error) {
	line := d.line()
	tok, err := d.dec.Token()
	if err != nil {
		return false, d.fail(line, err)
	}
	if tok != json.Delim('{') {
		d.p.problem(lineLoc(line), "ingest.expected_object", "What", what)
		return false, d.skipRest(tok)
	}
	return true, nil
}
