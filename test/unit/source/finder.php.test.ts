import { behavesLikeSqlFinder } from './behavesLikeSqlFinder';

behavesLikeSqlFinder('php');
