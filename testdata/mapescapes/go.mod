module example.com/mapescapes

go 1.26
