//go:build !unix

package sim

import (
	"errors"
	"os"
)

func openLockFile(string) (*os.File, error) { return nil, errors.New("no attach lock here") }

func tryLock(*os.File) (bool, error) { return false, errors.New("no attach lock here") }
