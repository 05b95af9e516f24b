// IC13. Single shortest path (LDBC SNB Interactive v1, complex read 13).
// Given two Persons, the length of the shortest path between them over knows (undirected): -1
// when there is none, 0 when the two are the same Person.
// params: {"person1Id": 933, "person2Id": 32985348834326}
// params: {"person1Id": 1129, "person2Id": 26388279067534}
// params: {"person1Id": 15393162789992, "person2Id": 35184372090192}
// params: {"person1Id": 933, "person2Id": 30786325578788}
// params: {"person1Id": 933, "person2Id": 933}
MATCH (person1:Person {id: $person1Id}), (person2:Person {id: $person2Id})
OPTIONAL MATCH path = shortestPath((person1)-[:knows*0..]-(person2))
RETURN CASE WHEN path IS NULL THEN -1 ELSE length(path) END AS shortestPathLength
