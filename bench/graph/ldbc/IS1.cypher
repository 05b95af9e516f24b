// IS1. Profile of a person (LDBC SNB Interactive v1, short read 1).
// Given a start Person, retrieve their first name, last name, birthday, IP address, browser, gender,
// creation date and the id of the city they live in.
// Schema: LDBC's IS_LOCATED_IN from Person to City is Person_isLocatedIn here (one type per label pair).
// params: {"personId": 933}
// params: {"personId": 1129}
// params: {"personId": 26388279067534}
// params: {"personId": 32985348834326}
MATCH (n:Person {id: $personId})-[:Person_isLocatedIn]->(p:Place)
RETURN
  n.firstName AS firstName,
  n.lastName AS lastName,
  n.birthday AS birthday,
  n.locationIP AS locationIP,
  n.browserUsed AS browserUsed,
  p.id AS cityId,
  n.gender AS gender,
  n.creationDate AS creationDate
