// IS3. Friends of a person (LDBC SNB Interactive v1, short read 3).
// Given a start Person, retrieve all of their friends and the date at which they became friends;
// most recent friendships first, then by friend id.  knows is stored once per pair, so the hop is
// undirected.
// params: {"personId": 933}
// params: {"personId": 1129}
// params: {"personId": 26388279067534}
// params: {"personId": 15393162789992}
MATCH (n:Person {id: $personId})-[r:knows]-(friend:Person)
RETURN
  friend.id AS personId,
  friend.firstName AS firstName,
  friend.lastName AS lastName,
  r.creationDate AS friendshipCreationDate
ORDER BY friendshipCreationDate DESC, personId ASC
