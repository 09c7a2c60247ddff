module example.com/incomplete

go 1.22
