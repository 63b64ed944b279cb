import { behavesLikeSqlFinder } from './behavesLikeSqlFinder';

behavesLikeSqlFinder('go');
