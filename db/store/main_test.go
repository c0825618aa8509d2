package store_test

import (
	"testing"

	"github.com/checkup-dev/checkup/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }
