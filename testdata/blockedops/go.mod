module example.com/blockedops

go 1.24
