module example.com/accountbench

go 1.24
