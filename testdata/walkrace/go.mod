module example.com/walkrace

go 1.22
