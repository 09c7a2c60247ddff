module example.com/selectreturn

go 1.22
