package edit

import "errors"

var errTODO = errors.New("edit: not implemented yet")

func ApplySection(sec Section, f File, opts Options) (*Result, error) { return nil, errTODO }
