package search

import "syscall"

const sysFstatat = syscall.SYS_NEWFSTATAT
